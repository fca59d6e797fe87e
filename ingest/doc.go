// Package ingest owns Phase 1: walking a repository (work tree or a git
// revision), extracting symbols, docstrings, comments, imports, references and
// the CGRAG code-index facts per language with tree-sitter, resolving imports
// to files, reading git history with go-git, and writing the results to the
// curated store incrementally. It never talks to a model except through
// agent/llm (enrichment) and never writes the raw store's run logs directly.
package ingest
