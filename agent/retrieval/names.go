package retrieval

import (
	"iter"
	"path"
	"strings"
)

// The naming rules every Graph applies, written once.

// FilesNamedIn is Graph.FilesNamed over files (in path order): tok itself
// when it is a file, else the files ending in /tok when tok has a slash or
// the extension of a known language (languageOf names it), else none.
func FilesNamedIn(files iter.Seq[string], exists func(string) bool, languageOf func(string) string, tok string) []string {
	if exists(tok) {
		return []string{tok}
	}
	if !strings.Contains(tok, "/") && languageOf(tok) == "" {
		return nil
	}
	var out []string
	suffix := "/" + strings.TrimPrefix(tok, "/")
	for p := range files {
		if strings.HasSuffix(p, suffix) {
			out = append(out, p)
		}
	}
	return out
}

// ModulesNamedIn is Graph.ModulesNamed over the source files (in path
// order): those whose name without extension is name.
func ModulesNamedIn(sources iter.Seq[string], name string) []string {
	var out []string
	for p := range sources {
		base := path.Base(p)
		if strings.TrimSuffix(base, path.Ext(base)) == name {
			out = append(out, p)
		}
	}
	return out
}
