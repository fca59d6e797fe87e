package bootstrap

import (
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
// paths and file names, and names of symbols defined in the snapshot. A word
// counts as a symbol name when it looks like code: `quoted`, called(),
// dotted.name, snake_case, camelCase, or a capitalised word past the first
// (a class such as Parser); plain English words do not seed.
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
			if !identifier.MatchString(name) || !codeLike(name, quoted || call || dotted, wi > 0) {
				continue
			}
			if files := s.definers(name); len(files) > 0 && len(files) <= maxMentionMatches {
				out = append(out, mention{files: files, reason: "defines " + name})
			}
		}
	}
	return out
}

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

// definers returns the files that declare a symbol named name, in path
// order; it stops counting past maxMentionMatches.
func (s *snapshot) definers(name string) []string {
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
		if len(out) > maxMentionMatches {
			break
		}
	}
	return out
}
