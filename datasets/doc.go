// Package datasets owns training datasets on disk: the dataset registry,
// Arrow schemas, Parquet and JSONL writers and readers, the manifest and the
// dataset card. It knows nothing about how examples were chosen (see curate).
package datasets
