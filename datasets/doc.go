// Package datasets owns training datasets on disk: the export layouts (the
// fields each trainer reads, per kind of example), their Arrow schemas,
// Parquet and JSONL writers and readers, the manifest and the dataset card.
// It knows nothing about how examples were chosen (see curate) and writes
// nothing but the stored rows' own fields.
package datasets
