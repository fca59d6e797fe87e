package bootstrap

import (
	"path"
	"regexp"
	"strings"

	"github.com/cra-dev/cra/ingest/lang"
)

// maxMentionMatches: a name in the message that matches more files than
// this (a basename such as utils.py, a method name such as __init__) says
// nothing about where the change is, and seeds nothing.
const maxMentionMatches = 3

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// mention is a file or symbol the task text names.
type mention struct {
	files  []string // paths of the snapshot it names
	reason string
}

// mentions finds the files a task text names, in order of appearance:
// paths and file names; names of symbols defined in the snapshot; and
// module names (a file's name without extension). A word that looks like
// code (`quoted`, called(), dotted.name, snake_case, camelCase, or a
// capitalised word past the first) seeds up to maxMentionMatches files; a
// plain lower-case word (slugify, store) seeds only when it names exactly
// the symbols or modules of one or two files and is not common prose.
func mentions(text string, s *snapshot) []mention {
	var out []mention
	for wi, word := range strings.Fields(text) {
		quoted := strings.Contains(word, "`")
		tok := strings.Trim(word, "`'\"“”‘’,;:!?()[]{}<>*")
		call := strings.HasSuffix(strings.TrimRight(word, ".,;:!?`'\""), ")")
		tok = strings.TrimSuffix(strings.TrimRight(tok, "."), "()")
		if tok == "" {
			continue
		}
		if files := s.filesNamed(tok); len(files) > 0 {
			if len(files) <= maxMentionMatches {
				out = append(out, mention{files: files, reason: "named in the message: " + tok})
			}
			continue
		}
		parts := strings.FieldsFunc(tok, func(r rune) bool { return r == '.' || r == ':' || r == '#' || r == '-' || r == '>' })
		dotted := len(parts) > 1
		for _, name := range parts {
			if !identifier.MatchString(name) {
				continue
			}
			limit := maxMentionMatches
			if !codeLike(name, quoted || call || dotted, wi > 0) {
				if wi == 0 || len(name) < 4 || prose[strings.ToLower(name)] {
					continue
				}
				limit = 2
			}
			if files := s.definers(name, limit); len(files) > 0 && len(files) <= limit {
				out = append(out, mention{files: files, reason: "defines " + name})
			} else if files := s.modulesNamed(name); len(files) > 0 && len(files) <= limit {
				out = append(out, mention{files: files, reason: "module " + name})
			}
		}
	}
	return out
}

// prose are common words that also name code often enough to mislead.
var prose = toSet(`also back code data does done each else file files from have into just like
	list make more most much must name need only over same some such than that their them then there
	these they this test tests time type used user uses using value values very what when where which
	while will with work`)

// codeLike reports whether a word names code rather than being prose.
func codeLike(name string, marked, notFirst bool) bool {
	if marked || strings.Contains(name, "_") {
		return true
	}
	for i, r := range name {
		if i > 0 && r >= 'A' && r <= 'Z' {
			return true // camelCase, HTTPServer
		}
	}
	return notFirst && len(name) >= 3 && name[0] >= 'A' && name[0] <= 'Z'
}

// filesNamed returns the snapshot's files a token names: a path, a path
// suffix (pkg/util.go) or a file name with an extension of a known language.
func (s *snapshot) filesNamed(tok string) []string {
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

// definers returns the source files that declare a symbol named name, in
// path order; it stops past limit files.
func (s *snapshot) definers(name string, limit int) []string {
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

// modulesNamed returns the source files whose name without extension is
// name (store → app/store.py).
func (s *snapshot) modulesNamed(name string) []string {
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
