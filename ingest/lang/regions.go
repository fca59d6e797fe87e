package lang

// Regions: a Python file's next version is parsed from its last version's
// chunks, not from its tree. The line diff between the two versions tells
// which chunks, and which members of the classes that changed, are still
// there whole (moved, perhaps). Those are blanked out, each of their lines
// left empty, and what is left is parsed: the statements that changed,
// and the classes around the members that changed, each line where it
// was. tree-sitter's incremental parse of Python re-lexes much of a file
// around every edit; this costs what the changed lines cost.
//
// A statement parsed with its neighbours blanked out is the statement a
// parse of the whole file gives when Python's tokenizer is in the same
// state at both ends of each blanked run as in the whole file: the
// statements around complete, the indentation at the run's, and no
// comment whose place depends on the line below. So for each run kept,
// at indentation I (0 for a chunk, the class body's for a member):
//   - the last line above it that is not blank is code: not a comment
//     (Python's tokenizer places a comment in the block above or below
//     depending on the next line of code) and not ending in a backslash,
//     which joins the next line;
//   - its own first line starts at I and is no clause going on with the
//     statement above (else, elif, except, finally), and its last line
//     that is not blank is code;
//   - the first line of code below it starts at I or less, and at I is no
//     such clause; so do the comment lines before it (a comment deeper
//     would go to the run's block).
//
// The file's first statement (a module's docstring) and a class's first
// member (its docstring) are always parsed. After the parse, the tree is
// checked too: no statement parsed may reach into a blanked run, and a
// member's run must fall inside its class's body, at its indentation.
// When any of it fails, or the parse finds a syntax error, the file is
// parsed whole, from scratch. Tests compare the facts with a whole
// extraction's over crafted versions, random edits, and by hand over
// every version of real histories (chunks_test.go).

import (
	"bytes"

	"github.com/cra-dev/cra/internal/linediff"
)

// part is a chunk of a kept version: its rows and its facts.
type part struct {
	startRow, endRow int
	facts            *chunkFacts
}

// member is a statement of a class's body with the comments above it,
// as its chunk's facts hold it: rows counted from the chunk's first row,
// facts from the member's own, the class being symbol classSymbol.
type member struct {
	startRow, endRow int
	facts            *chunkFacts
}

// classSymbol stands for the class in a member's facts.
const classSymbol = -2

// keep is a run of rows of the new version whose facts are known: a chunk
// or a class member of the last version that the diff left whole.
type keep struct {
	start, end int // rows of the new version, inclusive
	facts      *chunkFacts
	indent     int // of its first line: 0 for a chunk
}

// source is a version's text split in lines.
type source struct {
	src []byte
	at  []int // linediff.LineStarts
}

func newSource(src []byte) source { return source{src: src, at: linediff.LineStarts(src)} }

func (s source) lines() int { return len(s.at) - 1 }

// line is row's text, without its line end.
func (s source) line(row int) []byte {
	if row >= s.lines() {
		return nil
	}
	return bytes.TrimRight(s.src[s.at[row]:s.at[row+1]], "\r\n")
}

func blank(line []byte) bool { return len(bytes.TrimLeft(line, " \t\f\v")) == 0 }

// code tells whether a line that is not blank may end a run: a comment
// line's place depends on the line below, a backslash joins the next.
func code(line []byte) bool {
	t := bytes.TrimLeft(line, " \t\f\v")
	return t[0] != '#' && line[len(line)-1] != '\\'
}

// indentOf is the indentation of a line that is not blank, -1 when it is
// made of anything but spaces (tabs and form feeds count as Python's
// tokenizer counts them, which these rules do not try).
func indentOf(line []byte) int {
	n := 0
	for n < len(line) && line[n] == ' ' {
		n++
	}
	if n < len(line) && (line[n] == '\t' || line[n] == '\f' || line[n] == '\v') {
		return -1
	}
	return n
}

// clause tells whether a line going on at indentation i is a clause of
// the statement above (else, elif, except, finally): tree-sitter parses
// "else:" on its own as an annotated name, without an error.
func clause(line []byte, i int) bool {
	for _, kw := range clauses {
		if rest, ok := bytes.CutPrefix(line[i:], kw); ok && (len(rest) == 0 || !identChar(rest[0])) {
			return true
		}
	}
	return false
}

var clauses = [][]byte{[]byte("else"), []byte("elif"), []byte("except"), []byte("finally")}

func identChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// regions lists the runs of cur to blank out: the parts of the last
// version (whose source is old), and the members of those that changed,
// that the line diff leaves whole, where they now stand, less those the
// rules of the file comment rule out.
func regions(old source, parts []part, cur source) []keep {
	hunks := linediff.HunksWithin(old.src, cur.src, maxParseEdits)
	h, shift := 0, 0
	// moved is where old rows s to e now start, false when a hunk touches
	// them. Rows are asked in order.
	moved := func(s, e int) (int, bool) {
		for h < len(hunks) && hunkBefore(hunks[h], s) {
			shift += hunks[h].ChildLines - hunks[h].ParentLines
			h++
		}
		return s + shift, h == len(hunks) || hunkStart(hunks[h]) > e
	}
	var out []keep
	add := func(k keep) bool {
		if n := len(out); (n == 0 || k.start > out[n-1].end) && k.fits(cur) {
			out = append(out, k)
			return true
		}
		return false
	}
	for i, p := range parts {
		if i == 0 {
			continue // the file's first statement
		}
		// A chunk that cannot be kept whole (a method added below the
		// class) may keep its members.
		if at, ok := moved(p.startRow, p.endRow); ok && add(keep{start: at, end: at + p.endRow - p.startRow, facts: p.facts}) {
			continue
		}
		for j, m := range p.facts.members {
			if j == 0 {
				continue // the class's docstring
			}
			s, e := p.startRow+m.startRow, p.startRow+m.endRow
			if at, ok := moved(s, e); ok {
				add(keep{start: at, end: at + e - s, facts: m.facts, indent: -1})
			}
		}
	}
	return out
}

// hunkStart is the first row of the last version a hunk changes, or for
// an insertion the row it inserts before.
func hunkStart(h linediff.Hunk) int {
	if h.ParentLines == 0 {
		return h.ParentStart
	}
	return h.ParentStart - 1
}

// hunkBefore tells whether a hunk lies wholly above row of the last
// version.
func hunkBefore(h linediff.Hunk, row int) bool {
	return hunkStart(h)+h.ParentLines <= row && (h.ParentLines > 0 || h.ParentStart <= row)
}

// fits tells whether k may be blanked out of cur (the file comment's
// rules), setting its indentation.
func (k *keep) fits(cur source) bool {
	first, last := k.start, k.end
	for first <= last && blank(cur.line(first)) {
		first++
	}
	for last >= first && blank(cur.line(last)) {
		last--
	}
	if first > last {
		return false
	}
	i := indentOf(cur.line(first))
	if i < 0 || (k.indent == 0) != (i == 0) || clause(cur.line(first), i) || !code(cur.line(last)) {
		return false
	}
	k.indent = i
	above := false // a line of code above: the first statement is never kept
	for r := k.start - 1; r >= 0; r-- {
		if l := cur.line(r); !blank(l) {
			if !code(l) {
				return false
			}
			above = true
			break
		}
	}
	if !above {
		return false
	}
	for r := k.end + 1; r < cur.lines(); r++ {
		l := cur.line(r)
		if blank(l) {
			continue
		}
		j := indentOf(l)
		if j < 0 || j > i {
			return false
		}
		if !code(l) && l[j] == '#' {
			continue // Python's tokenizer skips a comment line
		}
		return j < i || !clause(l, i)
	}
	return true
}

// blanked is cur with the rows of runs left empty, each row where it was.
func blanked(cur source, runs []keep) []byte {
	out := make([]byte, 0, len(cur.src))
	row := 0
	for _, k := range runs {
		out = append(out, cur.src[cur.at[row]:cur.at[k.start]]...)
		for range k.end - k.start + 1 {
			out = append(out, '\n')
		}
		row = k.end + 1
	}
	return append(out, cur.src[cur.at[min(row, cur.lines())]:]...)
}

// starts are the first rows of runs.
func starts(runs []keep) []int {
	out := make([]int, len(runs))
	for i, k := range runs {
		out[i] = k.start
	}
	return out
}
