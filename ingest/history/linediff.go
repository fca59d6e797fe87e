package history

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math"
	"math/bits"
)

// The line counter computes the numbers `git diff --numstat` prints: lines
// inserted and deleted by a shortest edit script between two texts, where a
// line is everything up to and including a '\n' (the last line may lack it,
// and then differs from the same text with one). CR bytes are line content.
// git's own diff is not always minimal: its preparation treats some often
// repeated lines (such as a blank line amid replaced lines) as changed. On
// real histories (git, redis, go-git) about 1% of file changes get a few more
// lines from git than from this counter; none get fewer.
//
// It works in stages, each cheaper than the next:
//
//  1. The common prefix and suffix are trimmed at the byte level, then backed
//     off to line boundaries. Most changes touch a few lines of a large file,
//     and this leaves only those lines.
//  2. The remaining lines are hashed into equivalence classes (integer ids),
//     counting each class's occurrences on both sides.
//  3. Lines whose class occurs on one side only cannot be part of any common
//     subsequence: they are counted as deleted or inserted and dropped. This
//     is exact, and it shrinks rewrites of distinct lines to almost nothing.
//  4. What is left goes to Myers' O(ND) algorithm (E. W. Myers, "An O(ND)
//     Difference Algorithm and Its Variations", 1986) in its bidirectional
//     form: forward and reverse furthest-reaching paths are extended one edit
//     at a time until they overlap on a diagonal, which gives the edit
//     distance D exactly. Only the counts are needed, so no script is ever
//     built: insertions and deletions follow from D and the two lengths.
//
// Cost limit. Finding D exactly costs O((N+M)*D) steps, quadratic for a
// large file rewritten with many repeated lines (blank lines, braces) left
// after stage 3. So each bidirectional search may extend each direction by at
// most limit edits, where limit = costBudget/(N+M) for the N+M lines left
// after stage 3, kept within [minCostLimit, maxCostLimit]: 1024 up to 65,536
// lines, falling to 256 from 262,144 lines. A search that reaches the limit
// without an overlap stops looking for the optimum: of the endpoints of the
// current forward and reverse paths, it takes the one that has consumed the
// most lines (x+y forward, (N-x)+(M-y) in reverse) and cuts the problem
// there. The explored side is solved exactly (its distance is at most limit,
// so its own search ends within the limit) and the search resumes on the
// rest, which is strictly smaller. The result is then the cost of a valid
// edit script, never below the minimum and usually a little above it. Only a
// file whose changed lines, after stage 3, need more than 2*limit edits can
// take this path; git gives up minimality on such files too, with heuristics
// of its own, so their counts may differ from git's. The work stays near
// (N+M)*limit steps: at most about costBudget, or (N+M)*minCostLimit for the
// largest inputs.

const (
	// minCostLimit and maxCostLimit bound the cost limit, in edits per
	// search direction.
	minCostLimit, maxCostLimit = 256, 1024
	// costBudget sets the cost limit of large inputs: about costBudget steps
	// of search in all.
	costBudget = 1 << 26
	// keepLineBuffers is the largest element count of a per-line buffer kept
	// between calls: one huge file should not pin its buffers for the rest of
	// the walk.
	keepLineBuffers = 1 << 20
)

// lineCounter counts inserted and deleted lines between two texts; it may
// keep buffers between calls; not safe for concurrent use.
type lineCounter struct {
	seed    maphash.Seed
	seeded  bool
	limit   int  // cost limit override for tests; 0 means the computed one
	minimal bool // for tests: discard no repeated line, count a minimal script
	table   []int32
	classes []lineClass
	ids     [2][]int32
	kinds   []uint8
	vf, vb  []int
}

// lineClass is one distinct line and how often it occurs on each side.
type lineClass struct {
	hash   uint64
	line   []byte
	n      [2]int32 // occurrences among each side's changed lines
	common int32    // occurrences among the trimmed lines, when counted
}

// count returns the lines inserted (in b, not matched in a) and deleted (in
// a, not matched in b).
func (lc *lineCounter) count(a, b []byte) (ins, del int) {
	whole := [2][]byte{a, b}
	// Stage 1: the common prefix and suffix, as whole lines.
	p := commonPrefix(a, b)
	if p == len(a) && p == len(b) {
		return 0, 0
	}
	p = bytes.LastIndexByte(a[:p], '\n') + 1
	a, b = a[p:], b[p:]
	s := commonSuffix(a, b)
	if s > 0 {
		i, j := len(a)-s, len(b)-s
		if (i > 0 && a[i-1] != '\n') || (j > 0 && b[j-1] != '\n') {
			// The suffix starts inside a line on some side: keep only the
			// lines after its first newline.
			if nl := bytes.IndexByte(a[i:], '\n'); nl < 0 {
				s = 0
			} else {
				s -= nl + 1
			}
		}
		a, b = a[:len(a)-s], b[:len(b)-s]
	}
	na, nb := countLines(a), countLines(b)
	if na == 0 || nb == 0 {
		return nb, na
	}

	// Stage 2: line classes.
	lc.reset(na + nb)
	lc.ids[0] = lc.classify(0, a, lc.ids[0][:0])
	lc.ids[1] = lc.classify(1, b, lc.ids[1][:0])

	// Stage 3: drop the lines without a counterpart, and the repeated lines
	// git discards among them.
	var x, y []int32
	if discard := [2]bool{lc.mayDiscard(0), lc.mayDiscard(1)}; !lc.minimal && (discard[0] || discard[1]) {
		prefix, suffix := whole[0][:p], whole[0][len(whole[0])-s:]
		lc.countCommon(prefix)
		lc.countCommon(suffix)
		trimmed := countLines(prefix) + countLines(suffix)
		x = lc.keep(0, lc.ids[0], trimmed+na, discard[0])
		y = lc.keep(1, lc.ids[1], trimmed+nb, discard[1])
	} else {
		x = lc.keep(0, lc.ids[0], 0, false)
		y = lc.keep(1, lc.ids[1], 0, false)
	}

	// Stage 4: the longest common subsequence of what is left.
	limit := lc.limit
	if limit <= 0 {
		limit = min(max(costBudget/max(len(x)+len(y), 1), minCostLimit), maxCostLimit)
	}
	cs := lc.lcs(x, y, limit)
	lc.release()
	return nb - cs, na - cs
}

// mayDiscard reports whether stage 3 may discard a repeated line of side:
// only then do the counts of the trimmed lines matter. Discarding one takes
// more than 3*(1+1) lines without a counterpart near it.
func (lc *lineCounter) mayDiscard(side int) bool {
	n := 0
	for _, id := range lc.ids[side] {
		if lc.classes[id].n[1-side] == 0 {
			if n++; n > 3*2 {
				return true
			}
		}
	}
	return false
}

// countCommon counts the lines of text, which both sides share, in the
// classes already made; it adds no class.
func (lc *lineCounter) countCommon(text []byte) {
	mask := uint64(len(lc.table) - 1)
	for len(text) > 0 {
		end := bytes.IndexByte(text, '\n') + 1
		if end == 0 {
			end = len(text)
		}
		line := text[:end]
		text = text[end:]
		h := maphash.Bytes(lc.seed, line)
		for slot := h & mask; ; slot = (slot + 1) & mask {
			c := lc.table[slot]
			if c == 0 {
				break
			}
			if cl := &lc.classes[c-1]; cl.hash == h && bytes.Equal(cl.line, line) {
				cl.common++
				break
			}
		}
	}
}

const (
	// discardWindow is how many lines on each side of a repeated line
	// stage 3 looks at.
	discardWindow = 100
	// maxRepeatLimit caps the number of matches that makes a line repeated.
	maxRepeatLimit = 1024
)

// Line kinds in stage 3.
const (
	kindKept     = iota // some matches: stays
	kindUnique          // no match on the other side: discarded
	kindRepeated        // many matches: discarded amid unique lines
)

// keep filters the class ids of side in place to those stage 4 must match:
// the lines with a counterpart in the other side's changed lines, less the
// repeated lines discarded among unique ones. lines is the side's whole line
// count. Repeated lines are looked for only if discard is set (mayDiscard),
// and then the classes must hold the counts of the trimmed lines.
func (lc *lineCounter) keep(side int, ids []int32, lines int, discard bool) []int32 {
	if !discard {
		out := ids[:0]
		for _, id := range ids {
			if lc.classes[id].n[1-side] > 0 {
				out = append(out, id)
			}
		}
		return out
	}
	// A line is repeated if its matches (in the whole other side, trimmed
	// lines included) reach 2^ceil(b/2), b the bit length of this side's
	// line count: about its square root.
	repeat := int32(min(1<<((bits.Len(uint(lines))+1)/2), maxRepeatLimit))
	kinds := lc.kinds[:0]
	for _, id := range ids {
		cl := &lc.classes[id]
		switch m := cl.n[1-side] + cl.common; {
		case m == 0:
			kinds = append(kinds, kindUnique)
		case m >= repeat:
			kinds = append(kinds, kindRepeated)
		default:
			kinds = append(kinds, kindKept)
		}
	}
	lc.kinds = kinds
	out := ids[:0]
	for i, id := range ids {
		switch kinds[i] {
		case kindUnique:
			continue
		case kindRepeated:
			if lc.discardRepeated(kinds, i) {
				continue
			}
		}
		if lc.classes[id].n[1-side] > 0 {
			out = append(out, id)
		}
	}
	return out
}

// discardRepeated decides whether the repeated line i is discarded: it is
// when, within discardWindow lines before and after it and not past a kept
// line, there are unique lines on both sides and more than three times as
// many unique lines as repeated ones (this one counted twice).
func (lc *lineCounter) discardRepeated(kinds []uint8, i int) bool {
	var u, r [2]int
	for k := i - 1; k >= max(i-discardWindow, 0) && kinds[k] != kindKept; k-- {
		if kinds[k] == kindUnique {
			u[0]++
		} else {
			r[0]++
		}
	}
	if u[0] == 0 {
		return false
	}
	for k := i + 1; k <= min(i+discardWindow, len(kinds)-1) && kinds[k] != kindKept; k++ {
		if kinds[k] == kindUnique {
			u[1]++
		} else {
			r[1]++
		}
	}
	return u[1] > 0 && u[0]+u[1] > 3*(r[0]+r[1]+2)
}

// reset prepares the hash table for up to n distinct lines.
func (lc *lineCounter) reset(n int) {
	if !lc.seeded {
		lc.seed, lc.seeded = maphash.MakeSeed(), true
	}
	size := 1 << bits.Len(uint(2*n-1)) // a power of two >= 2n: at most half full
	if cap(lc.table) < size {
		lc.table = make([]int32, size)
	} else {
		lc.table = lc.table[:size]
		clear(lc.table)
	}
	lc.classes = lc.classes[:0]
}

// release drops the references to the texts and the buffers that grew too
// large to keep.
func (lc *lineCounter) release() {
	clear(lc.classes)
	lc.classes = lc.classes[:0]
	if cap(lc.table) > keepLineBuffers {
		lc.table = nil
	}
	if cap(lc.classes) > keepLineBuffers {
		lc.classes = nil
	}
	for i, ids := range lc.ids {
		if cap(ids) > keepLineBuffers {
			lc.ids[i] = nil
		}
	}
	if cap(lc.kinds) > keepLineBuffers {
		lc.kinds = nil
	}
	if cap(lc.vf) > keepLineBuffers {
		lc.vf, lc.vb = nil, nil
	}
}

// classify appends the class id of every line of text to ids, counting the
// occurrences on side.
func (lc *lineCounter) classify(side int, text []byte, ids []int32) []int32 {
	mask := uint64(len(lc.table) - 1)
	for len(text) > 0 {
		end := bytes.IndexByte(text, '\n') + 1
		if end == 0 {
			end = len(text)
		}
		line := text[:end]
		text = text[end:]
		h := maphash.Bytes(lc.seed, line)
		slot := h & mask
		var id int32
		for {
			c := lc.table[slot]
			if c == 0 {
				id = int32(len(lc.classes))
				lc.classes = append(lc.classes, lineClass{hash: h, line: line})
				lc.table[slot] = id + 1
				break
			}
			if cl := &lc.classes[c-1]; cl.hash == h && bytes.Equal(cl.line, line) {
				id = c - 1
				break
			}
			slot = (slot + 1) & mask
		}
		lc.classes[id].n[side]++
		ids = append(ids, id)
	}
	return ids
}

// lcs returns the length of a longest common subsequence of x and y, or of a
// long common subsequence when the cost limit cuts the search.
func (lc *lineCounter) lcs(x, y []int32, limit int) int {
	common := 0
	for {
		p := 0
		for p < len(x) && p < len(y) && x[p] == y[p] {
			p++
		}
		x, y = x[p:], y[p:]
		s := 0
		for s < len(x) && s < len(y) && x[len(x)-1-s] == y[len(y)-1-s] {
			s++
		}
		x, y = x[:len(x)-s], y[:len(y)-s]
		common += p + s
		if len(x) == 0 || len(y) == 0 {
			return common
		}
		d, i, j, forward := lc.bisect(x, y, limit)
		if d >= 0 {
			return common + (len(x)+len(y)-d)/2
		}
		// Cut at (i, j). The explored side costs at most limit edits, so its
		// own search finishes exactly; continue with the other side.
		if forward {
			common += lc.lcs(x[:i], y[:j], limit)
			x, y = x[i:], y[j:]
		} else {
			common += lc.lcs(x[i:], y[j:], limit)
			x, y = x[:i], y[:j]
		}
	}
}

// bisect runs the bidirectional search on x and y, which are non-empty and
// differ in their first and in their last element. It returns the edit
// distance d, or, when each direction has spent limit edits without the two
// meeting, d = -1 and the point (i, j) to cut at: the endpoint of a forward
// path (forward set) or of a reverse path that has consumed the most lines.
//
// Diagonal k holds the points (i, i-k). vf[k] is the largest i reached on k
// by a forward path with the current number of edits, vb[k] the smallest i
// reached by a reverse path from (n, m). Diagonals are clipped to [-m, n];
// the slots just outside the live range hold sentinels that never win.
// Values beyond the grid (i > n or i-k > m forward) can arise next to its
// edges; they never lead back into it and only ever confirm an overlap that
// a cheaper path has already produced, so they are harmless for d and are
// skipped as cut points.
func (lc *lineCounter) bisect(x, y []int32, limit int) (d, i, j int, forward bool) {
	n, m := len(x), len(y)
	size := n + m + 3
	if cap(lc.vf) < size {
		lc.vf, lc.vb = make([]int, size), make([]int, size)
	}
	off := m + 1 // vf[off+k] is diagonal k
	vf, vb := lc.vf[:size], lc.vb[:size]
	delta := n - m
	odd := delta&1 != 0
	// Zero edits: x[0] != y[0] and x[n-1] != y[m-1], so no snake leaves either
	// corner.
	vf[off] = 0
	vb[off+delta] = n
	fmin, fmax := 0, 0
	bmin, bmax := delta, delta
	for e := 1; ; e++ {
		// Forward paths with e edits, on diagonals of e's parity.
		if fmin > -m {
			fmin--
			vf[off+fmin-1] = -1
		} else {
			fmin++
		}
		if fmax < n {
			fmax++
			vf[off+fmax+1] = -1
		} else {
			fmax--
		}
		for k := fmin; k <= fmax; k += 2 {
			var i int
			if lo, hi := vf[off+k-1], vf[off+k+1]; lo >= hi {
				i = lo + 1 // delete x[lo]
			} else {
				i = hi // insert y[hi-k-1]
			}
			j := i - k
			for i < n && j < m && x[i] == y[j] {
				i++
				j++
			}
			vf[off+k] = i
			if odd && bmin <= k && k <= bmax && vb[off+k] <= i {
				return 2*e - 1, 0, 0, false
			}
		}
		// Reverse paths with e edits.
		if bmin > -m {
			bmin--
			vb[off+bmin-1] = math.MaxInt
		} else {
			bmin++
		}
		if bmax < n {
			bmax++
			vb[off+bmax+1] = math.MaxInt
		} else {
			bmax--
		}
		for k := bmin; k <= bmax; k += 2 {
			var i int
			if lo, hi := vb[off+k-1], vb[off+k+1]; lo < hi {
				i = lo // insert y[lo-k]
			} else {
				i = hi - 1 // delete x[hi-1]
			}
			j := i - k
			for i > 0 && j > 0 && x[i-1] == y[j-1] {
				i--
				j--
			}
			vb[off+k] = i
			if !odd && fmin <= k && k <= fmax && i <= vf[off+k] {
				return 2 * e, 0, 0, false
			}
		}
		if e < limit {
			continue
		}
		best := 0
		for k := fmin; k <= fmax; k += 2 {
			if fi, fj := vf[off+k], vf[off+k]-k; fi <= n && fj <= m && fi+fj > best && fi+fj < n+m {
				best, i, j, forward = fi+fj, fi, fj, true
			}
		}
		for k := bmin; k <= bmax; k += 2 {
			if bi, bj := vb[off+k], vb[off+k]-k; bi >= 0 && bj >= 0 && n-bi+m-bj > best && bi+bj > 0 {
				best, i, j, forward = n-bi+m-bj, bi, bj, false
			}
		}
		if best > 0 {
			return -1, i, j, forward
		}
	}
}

// countLines is the number of lines of text: its newlines, plus one for a
// last line without a newline.
func countLines(text []byte) int {
	n := bytes.Count(text, []byte{'\n'})
	if len(text) > 0 && text[len(text)-1] != '\n' {
		n++
	}
	return n
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if w := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); w != 0 {
			return i + bits.TrailingZeros64(w)/8
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffix is the length of the longest common suffix of a and b.
func commonSuffix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		wa := binary.BigEndian.Uint64(a[len(a)-i-8:])
		wb := binary.BigEndian.Uint64(b[len(b)-i-8:])
		if w := wa ^ wb; w != 0 {
			return i + bits.TrailingZeros64(w)/8
		}
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}
