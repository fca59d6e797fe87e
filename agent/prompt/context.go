package prompt

import (
	"fmt"
	"strings"

	"github.com/cra-dev/cra/kb/schema"
)

// ContextFile is a file of an execute prompt's context package:
// its path, the text of the symbols retrieval chose for it, the comments
// that say why its code is as it is, and notes from its history.
type ContextFile struct {
	Path    string
	Symbols []ContextSymbol
	// Rationale are the file's comments that explain why ("line 12: ...").
	Rationale []string
	// Notes are what history says of the file: the files it changes with,
	// its recent commits.
	Notes []string
}

// ContextSymbol is a symbol's text at its detail level: a primary symbol
// in full, a supporting one as its signature and docstring, a type its
// definition.
type ContextSymbol struct {
	Tier string
	Text string
}

// writeContext renders the files of a context package: each path, then
// its symbols, rationale comments and notes indented beneath it.
func writeContext(b *strings.Builder, files []ContextFile) {
	for _, f := range files {
		fmt.Fprintf(b, "%s\n", f.Path)
		for _, s := range f.Symbols {
			writeIndented(b, "    ", dedent(strings.TrimRight(s.Text, " \t\n")))
		}
		for _, r := range f.Rationale {
			writeIndented(b, "    [why] ", strings.TrimSpace(r))
		}
		for _, n := range f.Notes {
			writeIndented(b, "    [history] ", strings.TrimSpace(n))
		}
	}
}

// writeIndented writes text with prefix before its first line and as many
// spaces before the others, keeping their own indentation.
func writeIndented(b *strings.Builder, prefix, text string) {
	pad := strings.Repeat(" ", 4)
	for i, line := range strings.Split(text, "\n") {
		switch {
		case i == 0:
			b.WriteString(prefix)
		case line != "":
			b.WriteString(pad)
		}
		b.WriteString(strings.TrimRight(line, " \t"))
		b.WriteByte('\n')
	}
}

// dedent removes the indentation every non-blank line of text shares (a
// method's body keeps its shape, its class's indentation goes).
func dedent(text string) string {
	lines := strings.Split(text, "\n")
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if common < 0 || n < common {
			common = n
		}
	}
	for i, l := range lines {
		if len(l) >= common && common > 0 {
			lines[i] = l[common:]
		} else if strings.TrimSpace(l) == "" {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

// FileFacts is what assembly knows of a kept file: its text (when known),
// its symbols with their tiers, its rationale comments and its history.
// Inference reads them from the knowledge base (retrieval.LoadFileFacts);
// curate from bootstrap's targets, which hold the text and the tiers only.
// Both build the package with BuildContext, so a training example shows
// its context as inference does.
type FileFacts struct {
	Path    string
	Content string // the file's text at the indexed state; "" when unknown
	Symbols []FactSymbol
	// Rationale are comments explaining why, as "line N: text".
	Rationale []LineNote
	// CoChanges and Commits are history notes, most telling first.
	CoChanges, Commits []string
}

// FactSymbol is a symbol of a kept file with its tier.
type FactSymbol struct {
	Key                  string // "path:Qualified.name"
	Tier                 string
	Signature, Docstring string
	StartLine, EndLine   int
}

// LineNote is a comment and its line.
type LineNote struct {
	Line int
	Text string
}

// Cut levels: what assembly drops first when the context is too large
// (retry details first, then supporting context, least useful first). Primary symbols are never cut: when they alone do not fit, the
// execute call is refused.
const (
	CutRetry       = "retry"        // the previous attempt's failure details
	CutCommits     = "commits"      // recent commits of a file
	CutCoChanges   = "co_changes"   // files a file changes with
	CutRationale   = "rationale"    // rationale comments
	CutSupporting  = "supporting"   // supporting symbols (signature and docstring)
	CutTypeContext = "type_context" // type definitions named by primary signatures
)

// CutOrder is the order levels are cut in; within a level, from the last
// file's last item backwards.
var CutOrder = []string{CutRetry, CutCommits, CutCoChanges, CutRationale, CutSupporting, CutTypeContext}

// typeContextLines bounds a type definition's text (a class with many
// methods is its head and first members).
const typeContextLines = 30

// Package is a context package: the files as the execute prompt
// shows them, the retry details if they survived, and what was cut, in
// the order it went ("level: path item").
type Package struct {
	Files []ContextFile
	Retry string
	Cut   []string
}

// item is one piece of the package and the level that cuts it ("" never).
type item struct {
	file  int
	level string
	name  string
	apply func(*ContextFile)
}

// items lists the pieces of the package in prompt order.
func items(facts []FileFacts) []item {
	var out []item
	for fi, f := range facts {
		lines := strings.Split(f.Content, "\n")
		text := func(s FactSymbol, limit int) (string, bool) {
			if f.Content == "" || s.StartLine < 1 || s.EndLine > len(lines) || s.EndLine < s.StartLine {
				return "", false
			}
			body := lines[s.StartLine-1 : s.EndLine]
			if limit > 0 && len(body) > limit {
				body = append(body[:limit:limit], "...")
			}
			return strings.Join(body, "\n"), true
		}
		var whole [][2]int // line ranges of the primary symbols shown in full
		for _, s := range f.Symbols {
			if _, ok := text(s, 0); ok && s.Tier == schema.TierPrimary {
				whole = append(whole, [2]int{s.StartLine, s.EndLine})
			}
		}
		// within reports whether lines a..b lie in a range shown in full
		// other than a..b itself.
		within := func(a, b int) bool {
			for _, r := range whole {
				if r[0] <= a && b <= r[1] && r != [2]int{a, b} {
					return true
				}
			}
			return false
		}
		for _, s := range f.Symbols {
			if within(s.StartLine, s.EndLine) {
				continue // nested in a primary symbol, shown with it
			}
			var body, level string
			switch s.Tier {
			case schema.TierPrimary:
				t, ok := text(s, 0)
				if !ok {
					t = signatureAndDoc(s)
				}
				body = t
			case schema.TierSupporting:
				body, level = signatureAndDoc(s), CutSupporting
			case schema.TierTypeContext:
				t, ok := text(s, typeContextLines)
				if !ok {
					t = s.Signature
				}
				body, level = t, CutTypeContext
			default:
				continue
			}
			sym := ContextSymbol{Tier: s.Tier, Text: body}
			out = append(out, item{fi, level, s.Key + " (" + s.Tier + ")", func(c *ContextFile) { c.Symbols = append(c.Symbols, sym) }})
		}
		for _, r := range f.Rationale {
			if within(r.Line, r.Line) {
				continue // in a body shown in full
			}
			note := fmt.Sprintf("line %d: %s", r.Line, r.Text)
			out = append(out, item{fi, CutRationale, f.Path + " " + short(note), func(c *ContextFile) { c.Rationale = append(c.Rationale, note) }})
		}
		for _, n := range f.CoChanges {
			out = append(out, item{fi, CutCoChanges, f.Path + " " + short(n), func(c *ContextFile) { c.Notes = append(c.Notes, n) }})
		}
		for _, n := range f.Commits {
			out = append(out, item{fi, CutCommits, f.Path + " " + short(n), func(c *ContextFile) { c.Notes = append(c.Notes, n) }})
		}
	}
	return out
}

// short is text cut to 60 characters for a log line.
func short(text string) string {
	if r := []rune(text); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return text
}

// signatureAndDoc is a symbol as a supporting one is shown: its signature
// and the first paragraph of its docstring beneath it.
func signatureAndDoc(s FactSymbol) string {
	doc, _, _ := strings.Cut(strings.TrimSpace(s.Docstring), "\n\n")
	if doc == "" {
		return s.Signature
	}
	return strings.TrimSpace(s.Signature) + "\n    " + strings.Join(strings.Fields(doc), " ")
}

// cutSequence is the order the cuttable items go in: by CutOrder, then
// from the end; the retry details first of all (index -1).
func cutSequence(its []item) []int {
	var seq []int
	for _, level := range CutOrder[1:] {
		for i := len(its) - 1; i >= 0; i-- {
			if its[i].level == level {
				seq = append(seq, i)
			}
		}
	}
	return seq
}

// BuildContext builds the context package from facts with the first cut items of
// the cut order left out (the retry details, when there are any, count
// as the first). ok is false when fewer than cut items can go.
func BuildContext(facts []FileFacts, retry string, cut int) (Package, bool) {
	its := items(facts)
	seq := cutSequence(its)
	if retry != "" {
		seq = append([]int{-1}, seq...)
	}
	if cut > len(seq) {
		return Package{}, false
	}
	gone := map[int]bool{}
	var pkg Package
	for _, i := range seq[:cut] {
		gone[i] = true
		if i < 0 {
			pkg.Cut = append(pkg.Cut, CutRetry+": the previous attempt's details")
		} else {
			pkg.Cut = append(pkg.Cut, its[i].level+": "+its[i].name)
		}
	}
	if !gone[-1] {
		pkg.Retry = retry
	}
	pkg.Files = make([]ContextFile, len(facts))
	for fi, f := range facts {
		pkg.Files[fi].Path = f.Path
	}
	for i, it := range its {
		if !gone[i] {
			it.apply(&pkg.Files[it.file])
		}
	}
	return pkg, true
}

// Cuttable is how many items of a package BuildContext can cut.
func Cuttable(facts []FileFacts, retry string) int {
	n := len(cutSequence(items(facts)))
	if retry != "" {
		n++
	}
	return n
}
