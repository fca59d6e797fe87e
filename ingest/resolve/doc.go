// Package resolve turns a whole repository's per-file facts (from
// ingest/lang) into edges: file → file dependencies (imports resolved to
// files of the repository) and symbol → symbol references (call, inherit,
// type_ref).
//
// It is pure: no I/O, no store, no parsing. The indexer loads the facts (from
// the extractors, or from the curated store for unchanged files) and calls
// Dependencies and References; GoModulePath reads a go.mod the indexer has
// already loaded. Imports that leave the repository (third-party packages,
// the standard library) and names that cannot be tied to one definition
// produce no edge: a missing edge costs retrieval a hint, a wrong edge
// misleads it.
//
// Resolution is name-based and per language (python.go, javascript.go,
// golang.go); the heuristics, and why each one is safe enough, are
// documented where they are applied. Indexes (path → file, directory →
// files, per-file name → symbols) are built once per call, so a repository
// of 10,000 files and half a million references resolves in well under a
// second on one core.
package resolve
