// Package ingest owns Phase 1: walking a repository (work tree or a git
// revision), extracting symbols, docstrings, comments, imports, references and
// the CGRAG code-index facts per language with tree-sitter, resolving imports
// to files, reading git history with go-git, and writing the results to the
// curated store incrementally; and `cra enrich`, the per-file descriptions
// by the reasoning model. It talks to models only through agent/llm's logged
// client, and writes the raw store only through kb (an index run's row,
// enrichment outputs and their calls).
package ingest
