package lang

import (
	"fmt"
	"path"
	"strings"
)

// Languages with an extractor.
const (
	Python     = "python"
	JavaScript = "javascript"
	TypeScript = "typescript"
	TSX        = "tsx"
	Go         = "go"
)

// Extractor turns one file into FileFacts. An Extractor owns a tree-sitter
// parser and compiled queries: it is not safe for concurrent use. Give each
// worker its own and Close it when the worker is done.
type Extractor interface {
	// Language is the language name the extractor parses ("python", ...).
	Language() string
	// Extract parses src and returns what it holds. Syntax errors are not
	// errors (see FileFacts.ErrorNodes); an error means the file was not
	// parsed at all (too large, parse timeout).
	Extract(path string, src []byte) (*FileFacts, error)
	// Close frees the parser and queries. The Extractor is unusable after.
	Close()
}

// extensions maps a lower-case file extension to its language. Only some of
// them have an extractor; the others are named so that files can be recorded
// with a language and no symbols.
var extensions = map[string]string{
	".py": Python, ".pyi": Python, ".pyw": Python,
	".js": JavaScript, ".mjs": JavaScript, ".cjs": JavaScript, ".jsx": JavaScript,
	".ts": TypeScript, ".mts": TypeScript, ".cts": TypeScript, ".tsx": TSX, ".go": Go,

	".rs": "rust", ".java": "java", ".kt": "kotlin", ".kts": "kotlin",
	".scala": "scala", ".groovy": "groovy", ".gradle": "groovy",
	".c": "c", ".h": "c",
	".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
	".cs": "csharp", ".fs": "fsharp", ".swift": "swift", ".m": "objective-c", ".mm": "objective-c",
	".rb": "ruby", ".php": "php", ".pl": "perl", ".pm": "perl", ".lua": "lua", ".r": "r",
	".dart": "dart", ".ex": "elixir", ".exs": "elixir", ".erl": "erlang", ".hs": "haskell",
	".ml": "ocaml", ".mli": "ocaml", ".clj": "clojure", ".zig": "zig", ".nim": "nim", ".jl": "julia",
	".vue": "vue", ".svelte": "svelte",
	".sh": "shell", ".bash": "shell", ".zsh": "shell", ".fish": "shell", ".ps1": "powershell",
	".sql": "sql", ".proto": "protobuf", ".graphql": "graphql", ".gql": "graphql",
	".tf": "hcl", ".hcl": "hcl", ".cmake": "cmake", ".mk": "make",
	".md": "markdown", ".markdown": "markdown", ".rst": "restructuredtext", ".txt": "text",
	".yaml": "yaml", ".yml": "yaml", ".json": "json", ".toml": "toml", ".ini": "ini", ".cfg": "ini",
	".xml": "xml", ".html": "html", ".htm": "html", ".css": "css", ".scss": "scss", ".less": "less",
	".ipynb": "jupyter",
}

// filenames maps whole base names that carry no useful extension.
var filenames = map[string]string{
	"makefile": "make", "gnumakefile": "make", "dockerfile": "dockerfile",
	"cmakelists.txt": "cmake", "go.mod": "go-mod", "go.sum": "go-sum",
}

// LanguageOf names the language of a file from its path, or "" when unknown.
// It names languages without an extractor too (rust, yaml, markdown...).
func LanguageOf(p string) string {
	base := strings.ToLower(path.Base(strings.ReplaceAll(p, "\\", "/")))
	if l, ok := filenames[base]; ok {
		return l
	}
	if strings.HasSuffix(base, ".dockerfile") {
		return "dockerfile"
	}
	return extensions[path.Ext(base)]
}

// Supported reports whether New can build an extractor for language.
func Supported(language string) bool {
	switch language {
	case Python, JavaScript, TypeScript, TSX, Go:
		return true
	}
	return false
}

// New returns a new extractor for language. The caller owns it and must
// Close it.
func New(language string) (Extractor, error) {
	var (
		e   Extractor
		err error
	)
	// Assign through typed variables: a nil *PythonExtractor in an
	// interface would not compare equal to nil.
	switch language {
	case Python:
		var x *PythonExtractor
		x, err = NewPython()
		e = x
	case JavaScript, TypeScript, TSX:
		var x *JSExtractor
		x, err = newJS(language)
		e = x
	case Go:
		var x *GoExtractor
		x, err = NewGo()
		e = x
	default:
		return nil, fmt.Errorf("lang: no extractor for language %q", language)
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

// ForPath returns a new extractor for the file's language, or nil when the
// language has none. The caller owns it and must Close it; a worker that
// handles many files should use a Set instead, which keeps one extractor per
// language.
func ForPath(p string) Extractor {
	l := LanguageOf(p)
	if !Supported(l) {
		return nil
	}
	e, err := New(l)
	if err != nil {
		// Only a broken built-in query gets here; tests catch it.
		return nil
	}
	return e
}

// Set is one worker's extractors, created on first use, one per language.
// Like an Extractor it is not safe for concurrent use.
type Set struct {
	byLang map[string]Extractor
}

// NewSet returns an empty Set.
func NewSet() *Set { return &Set{byLang: map[string]Extractor{}} }

// ForPath returns the Set's extractor for the file's language, or nil when
// the language has none. The Set keeps ownership: do not Close it.
func (s *Set) ForPath(p string) (Extractor, error) {
	l := LanguageOf(p)
	if !Supported(l) {
		return nil, nil
	}
	if e, ok := s.byLang[l]; ok {
		return e, nil
	}
	e, err := New(l)
	if err != nil {
		return nil, err
	}
	s.byLang[l] = e
	return e, nil
}

// Close closes every extractor the Set created.
func (s *Set) Close() {
	for l, e := range s.byLang {
		e.Close()
		delete(s.byLang, l)
	}
}
