package lang

import "github.com/cra-dev/cra/kb/schema"

// Symbol kinds, as stored in symbols.kind.
const (
	KindFunction  = "function"
	KindClass     = "class"
	KindMethod    = "method"
	KindInterface = "interface"
	KindTypeAlias = "type_alias"
	KindEnum      = "enum"
	KindVariable  = "variable" // module-level (package-level in Go) names only
)

// Reference kinds, as a resolver turns them into symbol_references edges.
const (
	RefCall    = "call"
	RefInherit = "inherit"
	RefTypeRef = "type_ref"
)

// Docstring formats.
const (
	FormatGoogle = "google"
	FormatNumpy  = "numpy"
	FormatSphinx = "sphinx"
	FormatJSDoc  = "jsdoc"
	FormatPlain  = "plain"
)

// Inline comment kinds.
const (
	CommentTodo      = "todo"
	CommentFixme     = "fixme"
	CommentHack      = "hack"
	CommentNote      = "note"
	CommentBugRef    = "bug_ref"
	CommentRationale = "rationale"
	CommentGeneral   = "general"
)

// Import kinds.
const (
	ImportPlain      = "import"      // Python `import a.b`, JS/TS `import ... from`, Go import spec
	ImportFrom       = "from"        // Python `from m import x`
	ImportRequire    = "require"     // CommonJS require("m"), TS `import x = require("m")`
	ImportDynamic    = "dynamic"     // JS/TS import("m")
	ImportExportFrom = "export_from" // JS/TS `export ... from "m"`
)

// FileFacts is everything extracted from one file. Indexes into Symbols
// (Parent, Symbol fields) are only meaningful within the same FileFacts; -1
// means "none" (module level).
type FileFacts struct {
	Path       string      `json:"path"`
	Language   string      `json:"language"`
	Symbols    []Symbol    `json:"symbols"`
	Docstrings []Docstring `json:"docstrings"`
	Comments   []Comment   `json:"inline_comments"`
	Imports    []Import    `json:"imports"`
	References []Reference `json:"references"`
	// ErrorNodes counts tree-sitter ERROR and MISSING nodes: 0 for a file
	// that parsed cleanly. Facts are still extracted from what was recovered.
	ErrorNodes int `json:"error_nodes"`
}

// Symbol is a declaration. Lines are 1-based and inclusive; StartLine
// includes decorators (Python) and `export` (JS/TS), Signature is the first
// line of the declaration itself (the `def` line for a decorated function).
type Symbol struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Signature string `json:"signature"`
	// Parent is the index of the enclosing symbol (class of a method, outer
	// function of a nested one). A Go method points to its receiver type when
	// that type is declared in the same file.
	Parent int `json:"parent"`
	// Receiver is the receiver type name of a Go method ("Store" for
	// `func (s *Store[K]) Get`), whether or not it is declared in this file.
	Receiver string `json:"receiver,omitempty"`

	// CGRAG code-index facts, deduplicated, in order of first appearance.
	// They belong to the innermost symbol only, never to its ancestors.

	// Raises holds exception types raised or thrown (Python raise, JS/TS
	// throw), "panic" for a Go panic, and sentinel errors a Go function
	// returns (ErrNotFound, io.EOF-style pkg.ErrX).
	Raises []string `json:"raises,omitempty"`
	// ErrorStrings holds literal messages of raises/throws/panics, error
	// constructors (errors.New, fmt.Errorf, new FooError) and error-level
	// logging calls, as written (format verbs and f-string braces kept).
	ErrorStrings []string `json:"error_strings,omitempty"`
	// Mutates holds module-level names and instance/receiver attributes
	// assigned or mutated in place: "_cache", "self.state", "this.count",
	// "s.items".
	Mutates []string `json:"mutates,omitempty"`
}

// Docstring is a symbol's (or the module's, Symbol == -1) documentation with
// quotes and comment markers stripped.
type Docstring struct {
	Symbol  int              `json:"symbol"`
	Line    int              `json:"line"`
	Content string           `json:"content"`
	Format  string           `json:"format"`
	Fields  schema.DocFields `json:"parsed_fields"`
}

// Comment is an inline comment that is not a docstring. Consecutive
// own-line comments at the same indentation are merged into one (lines joined
// with "\n") unless the next one starts with a marker such as TODO; tool
// pragmas (noqa, eslint-disable, //go:generate...) and decoration-only lines
// are dropped.
type Comment struct {
	Line        int    `json:"line"`
	Symbol      int    `json:"symbol"`
	Content     string `json:"content"`
	Kind        string `json:"kind"`
	IsRationale bool   `json:"is_rationale"`
}

// Import is one import spec as written; resolving it to a file needs the
// whole repository and is not done here.
type Import struct {
	Line int    `json:"line"`
	Kind string `json:"kind"`
	// Module is the specifier without Python's leading dots: "a.b" for
	// `from ..a.b import c`, "./util" for JS, "github.com/x/y" for Go.
	Module string `json:"module"`
	// Level is the number of leading dots of a Python relative import.
	Level int `json:"level,omitempty"`
	// Names are the imported names (Python from-imports, JS named, default
	// and namespace imports, re-exports, destructured requires). "*" is a
	// wildcard or namespace, "default" a JS default import.
	Names []ImportName `json:"names,omitempty"`
	// Alias is the local name bound to the whole module: `import a.b as c`,
	// `const x = require("m")`, a Go import name ("_" and "." included).
	Alias string `json:"alias,omitempty"`
	// TypeOnly marks TS `import type` / `export type ... from`.
	TypeOnly bool `json:"type_only,omitempty"`
}

// ImportName is one imported name and the local alias it is bound to, if any.
type ImportName struct {
	Name  string `json:"name"`
	Alias string `json:"alias,omitempty"`
}

// Reference is a name used by a symbol (Symbol == -1 for module-level code),
// as written: "foo", "self.bar", "pkg.Func", "obj.method". A callee whose
// receiver is not a plain name (a call result, a subscript...) is recorded as
// ".method". A later, repository-wide pass resolves names to symbols.
type Reference struct {
	Symbol int    `json:"symbol"`
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Line   int    `json:"line"`
}
