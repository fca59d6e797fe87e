package prompt

import (
	"fmt"
	"strings"
)

// ContextFile is a file of an execute prompt's context package (spec 4.4):
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
