package retrieval

import "github.com/cra-dev/cra/kb"

// Graph is the repository state expansion reads: the knowledge base at
// inference, bootstrap's snapshot of a commit's parent when it rebuilds
// ground truth. Paths are repository-relative, slash-separated.
type Graph interface {
	// FilesNamed returns the files a token names: a path, a path suffix
	// (pkg/util.go) or a file name with the extension of a known language.
	FilesNamed(tok string) []string
	// Definers returns the source files that declare a symbol named name,
	// in path order; it may stop once it has more than limit.
	Definers(name string, limit int) []string
	// ModulesNamed returns the source files whose name without extension
	// is name (store → app/store.py).
	ModulesNamed(name string) []string
	// Dependencies lists the file → file import edges, in a stable order.
	Dependencies() []Edge
	// CoChanged counts, for every other file, the earlier commits that
	// changed it together with path.
	CoChanged(path string) map[string]int
	// Exists reports whether path is a file of the state.
	Exists(path string) bool
	// TopLevelSymbols names path's top-level declarations in file order.
	TopLevelSymbols(path string) []string
	// Documents are the source files as the lexical tier reads them, in
	// path order: each file's terms (Terms of its path, symbol names and
	// docstrings).
	Documents() []Document
}

// Edge is one import: From imports To.
type Edge = kb.PathEdge
