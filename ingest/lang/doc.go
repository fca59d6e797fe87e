// Package lang owns pure, per-file language extraction: given one file's path
// and bytes it returns the symbols, docstrings, inline comments, import specs,
// references (calls, inheritance, type references) and CGRAG code-index facts
// (raises, error strings, mutated state) that tree-sitter can recover from that
// file alone. Python, JavaScript (with JSX), TypeScript, TSX and Go have
// extractors; LanguageOf also names languages that have none.
//
// It does no I/O, never touches a store and never resolves anything across
// files: import resolution and caller→callee edges belong to ingest/resolve,
// and called_by to the indexer (package ingest), which see the whole
// repository.
//
// Concurrency: an Extractor owns a tree-sitter parser (C memory), its compiled
// patterns and buffers it reuses from file to file; it is not safe for
// concurrent use. Each worker goroutine makes its own (New, NewPython, ... or
// a Set, which keeps one per language) and Closes it when done. Trees are
// closed before Extract returns.
//
// Speed: one C call parses a file (reading the Go bytes in place) and copies
// its tree into Go structs, and the extractors' patterns (tree-sitter query
// syntax) are matched over that copy in Go (flatten.go, node.go,
// pattern.go): per-node cgo calls and a tree-sitter query cursor cost more
// than the parse itself. Tests check both against go-tree-sitter and its
// query engine on real trees. Replaying history parses a file in many
// versions: ExtractFrom parses a version from the tree of the last
// (incremental.go); ExtractStructure, for Python, parses only the
// statements and class members that changed since the last version, the
// others blanked out (regions.go, members.go), and extracts only those
// whose text a ChunkCache does not hold (chunks.go), with a whole
// extraction's facts either way.
//
// Robustness: syntax errors are not errors (FileFacts.ErrorNodes counts them
// and what tree-sitter recovered is still extracted); invalid UTF-8 is
// replaced in every returned string; files over MaxFileBytes and parses that
// time out return an error and nothing else.
package lang
