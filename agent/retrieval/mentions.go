package retrieval

import (
	"regexp"
	"strings"
)

// maxMentionMatches: a name in the message that matches more files than
// this (a basename such as utils.py, a method name such as __init__) says
// nothing about where the change is, and seeds nothing.
const maxMentionMatches = 3

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Mention is a file or symbol the task text names.
type Mention struct {
	Files  []string // paths of the state it names
	Reason string
	// Symbol is the symbol name the files define, when that is how they
	// were found: the precision stage's first guess at a primary symbol.
	Symbol string
}

// Mentions finds the files a task text names, in order of appearance:
// paths and file names; names of symbols defined in the snapshot; and
// module names (a file's name without extension). A word that looks like
// code (`quoted`, called(), dotted.name, snake_case, camelCase, or a
// capitalised word past the first) seeds up to maxMentionMatches files; a
// plain lower-case word (slugify, store) seeds only when it names exactly
// the symbols or modules of one or two files and is not common prose.
func Mentions(text string, g Graph) []Mention {
	var out []Mention
	for wi, word := range strings.Fields(text) {
		quoted := strings.Contains(word, "`")
		tok := strings.Trim(word, "`'\"“”‘’,;:!?()[]{}<>*")
		call := strings.HasSuffix(strings.TrimRight(word, ".,;:!?`'\""), ")")
		tok = strings.TrimSuffix(strings.TrimRight(tok, "."), "()")
		if tok == "" {
			continue
		}
		if files := g.FilesNamed(tok); len(files) > 0 {
			if len(files) <= maxMentionMatches {
				out = append(out, Mention{Files: files, Reason: "named in the message: " + tok})
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
			if files := g.Definers(name, limit); len(files) > 0 && len(files) <= limit {
				out = append(out, Mention{Files: files, Reason: "defines " + name, Symbol: name})
			} else if files := g.ModulesNamed(name); len(files) > 0 && len(files) <= limit {
				out = append(out, Mention{Files: files, Reason: "module " + name})
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

func toSet(words string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(words) {
		set[w] = true
	}
	return set
}
