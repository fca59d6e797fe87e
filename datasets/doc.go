// Package datasets owns training datasets on disk: the export layouts (the
// fields each trainer reads, per kind of example), their Arrow schemas,
// Parquet and JSONL writers and readers, the manifest and the dataset card;
// Inspect, which reads an export back and checks it against its manifest;
// and the report of a dataset version (WriteReport: Markdown and HTML with
// charts, every figure an aggregate the store computes).
// It knows nothing about how examples were chosen (see curate) and writes
// nothing but the stored rows' own fields.
package datasets
