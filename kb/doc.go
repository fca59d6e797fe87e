// Package kb owns cra's two DuckDB stores: opening them, the one-writer lock
// and the notes that name who holds a store (writers and readers), the
// per-input locks of batches (a repository, a dataset name) and run liveness,
// the embedded versioned migrations, attaching both for SQL, the writer
// helpers every load goes through (bounded transactions, Appenders, the
// anti-join on deterministic ids), compaction, the curated read API
// (KnowledgeBase), dataset versions, the raw run-log writers and
// readers (index runs, model calls, task runs, solve runs, training
// examples, training plans, status, distillation's request cache,
// spending, batches and outcomes) and the read API over the run logs for
// `cra train-plan` (LogAnalysis: eval scores, solve runs, training data
// available).
//
// The types stored and exchanged with models (stages, ground truth, plans,
// plan passes, edits, docstring fields) are defined once in kb/schema, a
// leaf package that agent/prompt and ingest/lang import without the
// stores.
//
// curated.duckdb is the code knowledge base: derived, and rebuildable by
// `cra index`. raw.duckdb is everything that happened: append-only, never
// rebuilt. kb imports no feature package; features import kb.
package kb
