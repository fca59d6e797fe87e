// Package kb owns cra's two DuckDB stores: opening them, the one-writer lock,
// the embedded versioned migrations, attaching both for SQL, the curated read
// API (KnowledgeBase) and the raw run-log writer and reader (LogAnalysis).
//
// curated.duckdb is the code knowledge base: derived, and rebuildable by
// `cra index`. raw.duckdb is everything that happened: append-only, never
// rebuilt. kb imports no feature package; features import kb.
package kb
