package bootstrap

import (
	"path"
	"strings"

	"github.com/cra-dev/cra/ingest/lang"
)

// FilesNamed returns the snapshot's files a token names: a path, a path
// suffix (pkg/util.go) or a file name with an extension of a known language.
func (s *snapshot) FilesNamed(tok string) []string {
	if _, ok := s.index[tok]; ok {
		return []string{tok}
	}
	if !strings.Contains(tok, "/") && lang.LanguageOf(tok) == "" {
		return nil
	}
	var out []string
	suffix := "/" + strings.TrimPrefix(tok, "/")
	for _, f := range s.repo.Files {
		if strings.HasSuffix(f.Path, suffix) {
			out = append(out, f.Path)
		}
	}
	return out
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
	var out []string
	for i, f := range s.facts {
		if f == nil {
			continue
		}
		p := s.repo.Files[i].Path
		base := path.Base(p)
		if strings.TrimSuffix(base, path.Ext(base)) == name {
			out = append(out, p)
		}
	}
	return out
}
