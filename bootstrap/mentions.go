package bootstrap

import (
	"iter"

	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/ingest/lang"
)

// FilesNamed returns the snapshot's files a token names (the rule is
// retrieval's, the same for every graph).
func (s *snapshot) FilesNamed(tok string) []string {
	return retrieval.FilesNamedIn(s.paths(false), func(p string) bool { _, ok := s.index[p]; return ok }, lang.LanguageOf, tok)
}

// paths are the snapshot's files in path order; sourceOnly keeps those
// with facts (parsed source).
func (s *snapshot) paths(sourceOnly bool) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i, f := range s.repo.Files {
			if (!sourceOnly || s.facts[i] != nil) && !yield(f.Path) {
				return
			}
		}
	}
}

// Definers returns the source files that declare a symbol named name, in
// path order; it stops past limit files.
func (s *snapshot) Definers(name string, limit int) []string {
	var out []string
	for i, f := range s.facts {
		if f == nil {
			continue
		}
		for _, sym := range f.symbols {
			if sym.Name == name {
				out = append(out, s.repo.Files[i].Path)
				break
			}
		}
		if len(out) > limit {
			break
		}
	}
	return out
}

// ModulesNamed returns the source files whose name without extension is
// name (store → app/store.py).
func (s *snapshot) ModulesNamed(name string) []string {
	return retrieval.ModulesNamedIn(s.paths(true), name)
}
