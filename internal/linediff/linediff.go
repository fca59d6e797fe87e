// Package linediff is the line diff cra's history replay works with: the
// hunks of a shortest edit script between two versions of a file, for
// bootstrap's edits and for tree-sitter's incremental parses.
package linediff

import "bytes"

// Hunk is one changed region of a line diff, as a unified diff's @@ header
// gives it: 1-based start lines and line counts on each side. A pure
// insertion has ParentLines 0 and ParentStart the line after which it
// inserts (0 at the top of the file); a pure deletion likewise on the
// child side.
type Hunk struct {
	ParentStart, ParentLines int
	ChildStart, ChildLines   int
}

// MaxEdits bounds the edit distance Hunks searches for exactly: past
// it, the rest of the trimmed middle becomes one hunk. Bootstrap only diffs
// commits of at most [bootstrap] max_changed_lines lines, far below it.
const MaxEdits = 4096

// Hunks returns the hunks of a shortest line diff from parent to child, in
// order. Lines end with '\n' (the last may lack it and then differs from
// the same line with one). It is Myers' greedy O(ND) algorithm ("An O(ND)
// Difference Algorithm and Its Variations", 1986) on the lines left after
// the common prefix and suffix are trimmed, keeping each round's
// furthest-reaching paths to walk the edit script back. It is a separate
// implementation from ingest/history's line counter, which runs the
// bidirectional search with git's preparation and cost heuristics and
// keeps only the counts (to agree with git log --numstat): on a large or
// repetitive change the two can differ, this one giving a shortest script.
func Hunks(parent, child []byte) []Hunk { return HunksWithin(parent, child, MaxEdits) }

// HunksWithin is Hunks searching up to maxEdits line edits exactly (the
// search keeps O(maxEdits²) of state): past them, the trimmed middle is
// one hunk.
func HunksWithin(parent, child []byte, maxEdits int) []Hunk {
	// The equal lines at both ends are compared in place; only the lines
	// between them are split and numbered.
	pre, pa, pb := 0, 0, 0 // lines, and where they end on each side
	for pa < len(parent) && pb < len(child) {
		ea, eb := nextLine(parent, pa), nextLine(child, pb)
		if !bytes.Equal(parent[pa:ea], child[pb:eb]) {
			break
		}
		pre, pa, pb = pre+1, ea, eb
	}
	ea, eb := len(parent), len(child)
	for ea > pa && eb > pb {
		sa, sb := lineBefore(parent, pa, ea), lineBefore(child, pb, eb)
		if !bytes.Equal(parent[sa:ea], child[sb:eb]) {
			break
		}
		ea, eb = sa, sb
	}
	x, y := lineIDs(parent[pa:ea], child[pb:eb])
	if len(x) == 0 && len(y) == 0 {
		return nil
	}
	return hunksOf(myers(x, y, maxEdits), len(y), pre)
}

// hunksOf turns the matches of the lines between the equal ends (keep[i]:
// the line of the child's n matched with the parent's line i, or -1) into
// hunks, the ends being pre lines long at the top.
func hunksOf(keep []int, n, pre int) []Hunk {
	var out []Hunk
	i, j := 0, 0
	for i < len(keep) || j < n {
		if i < len(keep) && j < n && keep[i] == j {
			i, j = i+1, j+1
			continue
		}
		h := Hunk{ParentStart: pre + i + 1, ChildStart: pre + j + 1}
		for i < len(keep) && keep[i] < 0 {
			i, h.ParentLines = i+1, h.ParentLines+1
		}
		for j < n && (i >= len(keep) || keep[i] != j) {
			j, h.ChildLines = j+1, h.ChildLines+1
		}
		if h.ParentLines == 0 {
			h.ParentStart--
		}
		if h.ChildLines == 0 {
			h.ChildStart--
		}
		out = append(out, h)
	}
	return out
}

// myers matches the lines of x and y along a shortest edit script and
// returns, for each line of x, the line of y it is kept as (-1: deleted).
func myers(x, y []int, maxEdits int) []int {
	n, m := len(x), len(y)
	keep := make([]int, n)
	for i := range keep {
		keep[i] = -1
	}
	max := n + m
	if max > maxEdits {
		max = maxEdits
	}
	off := max + 1
	v := make([]int, 2*max+3)
	// trace[d] holds the furthest x per diagonal k in -(d-1)..d-1 before
	// round d: all the walk back needs, O(D²) in all.
	var trace [][]int
	found := false
	for d := 0; d <= max && !found; d++ {
		if d == 0 {
			trace = append(trace, nil)
		} else {
			trace = append(trace, append([]int(nil), v[off-d+1:off+d]...))
		}
		for k := -d; k <= d; k += 2 {
			var px int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				px = v[off+k+1] // down: an insertion
			} else {
				px = v[off+k-1] + 1 // right: a deletion
			}
			py := px - k
			for px < n && py < m && x[px] == y[py] {
				px, py = px+1, py+1
			}
			v[off+k] = px
			if px >= n && py >= m {
				found = true
				break
			}
		}
	}
	if !found {
		return keep // too far apart: everything in the middle changes
	}
	// Walk back from (n, m) through the saved rounds.
	px, py := n, m
	for d := len(trace) - 1; d >= 0 && (px > 0 || py > 0); d-- {
		at := func(k int) int { return trace[d][k+d-1] } // furthest x on k before round d
		k := px - py
		prevK, startX := 0, 0
		if d > 0 {
			if k == -d || (k != d && at(k-1) < at(k+1)) {
				prevK = k + 1 // came down: an insertion
				startX = at(prevK)
			} else {
				prevK = k - 1 // came right: a deletion
				startX = at(prevK) + 1
			}
		}
		for px > startX && py > startX-k {
			px, py = px-1, py-1
			keep[px] = py
		}
		if d > 0 {
			px = at(prevK)
			py = px - prevK
		}
	}
	return keep
}

// LineStarts are the byte offsets at which b's lines start (each line
// keeps its '\n'; the last may lack one), then len(b): line i is
// b[at[i]:at[i+1]].
func LineStarts(b []byte) []int {
	at := make([]int, 1, bytes.Count(b, newline)+2)
	for i := 0; i < len(b); {
		i = nextLine(b, i)
		at = append(at, i)
	}
	return at
}

var newline = []byte{'\n'}

// nextLine is where the line of b starting at i ends (after its '\n').
func nextLine(b []byte, i int) int {
	if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(b)
}

// lineBefore is where the line of b ending at end starts, lo at the
// earliest (lo is a line's start).
func lineBefore(b []byte, lo, end int) int {
	return lo + bytes.LastIndexByte(b[lo:end-1], '\n') + 1
}

// lineIDs numbers equal lines equally across both sides.
func lineIDs(a, b []byte) ([]int, []int) {
	ids := map[string]int{}
	id := func(text []byte) []int {
		out := make([]int, 0, bytes.Count(text, newline)+1)
		for i := 0; i < len(text); {
			e := nextLine(text, i)
			n, ok := ids[string(text[i:e])]
			if !ok {
				n = len(ids)
				ids[string(text[i:e])] = n
			}
			out = append(out, n)
			i = e
		}
		return out
	}
	return id(a), id(b)
}
