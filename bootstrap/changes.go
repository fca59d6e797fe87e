package bootstrap

import (
	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/internal/linediff"
)

// fileChange is one file a qualifying commit changed, at both states.
type fileChange struct {
	path          string
	parent, child []byte // nil where the file is absent
	created       bool
	deleted       bool
	before, after *facts // nil where absent or not a source file
	hunks         []linediff.Hunk
	lines         [2][]string // split on demand: [0] parent, [1] child
}

// parentLines returns, for each hunk, the parent lines it changes; a pure
// insertion after line k touches the boundary (k, k+1) and is reported as
// insertAfter.
func (c *fileChange) changedLines(parent bool) (lines []int, insertAfter []int) {
	for _, h := range c.hunks {
		start, n := h.ChildStart, h.ChildLines
		if parent {
			start, n = h.ParentStart, h.ParentLines
		}
		if n == 0 {
			insertAfter = append(insertAfter, start)
			continue
		}
		for l := start; l < start+n; l++ {
			lines = append(lines, l)
		}
	}
	return lines, insertAfter
}

// innermost returns the index of the smallest symbol containing line, -1
// when the line is module-level.
func innermost(syms []lang.Symbol, line int) int {
	best := -1
	for i, s := range syms {
		if s.StartLine <= line && line <= s.EndLine {
			if best < 0 || s.EndLine-s.StartLine < syms[best].EndLine-syms[best].StartLine {
				best = i
			}
		}
	}
	return best
}

// innermostAround returns the smallest symbol that contains both line k
// and k+1: the one an insertion after line k lands inside.
func innermostAround(syms []lang.Symbol, k int) int {
	best := -1
	for i, s := range syms {
		if s.StartLine <= k && k < s.EndLine {
			if best < 0 || s.EndLine-s.StartLine < syms[best].EndLine-syms[best].StartLine {
				best = i
			}
		}
	}
	return best
}

// touchedSymbols returns the innermost symbols a change touches on one side
// (parent or child), and whether some non-blank changed line lies outside
// every symbol (module-level code such as imports).
func touchedSymbols(c *fileChange, parent bool) (idx map[int]bool, module bool) {
	f, content := c.after, c.child
	if parent {
		f, content = c.before, c.parent
	}
	idx = map[int]bool{}
	if f == nil {
		return idx, false
	}
	lines, inserts := c.changedLines(parent)
	side := 1
	if parent {
		side = 0
	}
	for _, l := range lines {
		if i := innermost(f.symbols, l); i >= 0 {
			idx[i] = true
			continue
		}
		if c.lines[side] == nil {
			c.lines[side] = splitLines(content)
		}
		if text := c.lines[side]; l-1 < len(text) && !blank(text[l-1]) {
			module = true
		}
	}
	for _, k := range inserts {
		if i := innermostAround(f.symbols, k); i >= 0 {
			idx[i] = true
		}
	}
	return idx, module
}

// qualifiedName is Parent.Name for nested symbols and Receiver.Name for Go
// methods.
func qualifiedName(syms []lang.Symbol, i int) string {
	s := syms[i]
	name := s.Name
	if s.Parent >= 0 && s.Parent < len(syms) && s.Parent != i {
		return qualifiedName(syms, s.Parent) + "." + name
	}
	if s.Receiver != "" {
		return s.Receiver + "." + name
	}
	return name
}

func splitLines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != '\n' {
			i++
		}
		out = append(out, string(b[:i]))
		if i < len(b) {
			i++
		}
		b = b[i:]
	}
	return out
}

func blank(s string) bool {
	for _, r := range s {
		if r != ' ' && r != '\t' && r != '\r' {
			return false
		}
	}
	return true
}
