package history

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math"
	"math/bits"
)

// The line counter computes the numbers `git diff --numstat` prints: the
// lines inserted and deleted by the edit script git's diff finds between two
// texts, where a line is everything up to and including a '\n' (the last
// line may lack it, and then differs from the same text with one). CR bytes
// are line content. git's script is not always a shortest one: its
// preparation discards some repeated lines, and its search gives up
// minimality when a change is expensive. The counter reproduces both, so its
// counts equal git's: on the whole histories of go-git, redis and git itself
// it agrees on every file. The rules below were found by comparing with
// `git diff --no-index --numstat` (git 2.39) on planted and random inputs
// (the tests do so on every run); they are not taken from git's code.
//
// It works in stages, each cheaper than the next:
//
//  1. The common prefix and suffix are trimmed at the byte level, then backed
//     off to line boundaries. Most changes touch a few lines of a large file,
//     and this leaves only those lines.
//  2. The remaining (changed) lines are hashed into equivalence classes
//     (integer ids), counting each class's occurrences on both sides.
//  3. Lines are sorted by their matches: the occurrences of their class on
//     the other side, over the whole text, trimmed lines included. A unique
//     line (no match) is discarded: counted as deleted or inserted. A
//     repeated line (at least 2^ceil(b/2) matches, b the bit length of its
//     own side's line count, at most 1024 matches) is discarded too when it
//     sits among unique lines: looking at most 100 lines back and 100 ahead,
//     each way stopping at the first line that is neither unique nor
//     repeated, there must be unique lines both ways and more than
//     3*(r+2) of them, r the repeated lines seen. The decision uses the
//     kinds of the lines, never earlier decisions (no input tried told
//     this apart from counting earlier discards as unique). This is where
//     git counts a blank line or a brace amid a rewritten block as changed
//     although a shortest script would match it. Counting the trimmed
//     lines costs a pass over the whole text, so it is done only when a
//     side has at least 7 lines without a match among the changed lines:
//     with fewer no repeated line can be discarded.
//  4. What is left goes to Myers' O(ND) algorithm (E. W. Myers, "An O(ND)
//     Difference Algorithm and Its Variations", 1986) in its bidirectional
//     form: forward and reverse furthest-reaching paths are extended one edit
//     at a time, forward first, until they overlap on a diagonal, which
//     gives the edit distance D. Only the counts are needed, so no script is
//     built: insertions and deletions follow from D and the two lengths.
//
// Expensive changes (myers.go). When the search has spent 256 edits per
// direction (D > 512) without an overlap, git no longer finds the optimum,
// and its result depends on where its divide and conquer cuts. The counter
// then replays that divide and conquer on the lines git searches: those of
// stage 3 plus the lines matched only among the trimmed ones (they cost an
// edit each, but shift the search's figures). Each box is trimmed of equal
// first and last lines, then searched as in stage 4:
//
//   - an overlap cuts the box at the meeting point, and both parts are
//     solved minimally (their distance is all that matters);
//   - after heurMinCost edits per direction, a furthest point that ends a
//     snake of at least heurSnake matches and has progressed more than
//     heurProgress lines per edit (x+y less its distance from the start
//     diagonal) is taken, the best forward one first, then the best
//     reverse one; the explored part is solved minimally, the other part
//     recursively (snakes of 19 to 21 gave the same results on every input
//     tried; 20 is a guess among them, the factor 4 is measured);
//   - after maxCost edits per direction, heurMaxCost or bogoSqrt(N+M+3) for
//     N+M lines if larger, the search cuts at the forward point with the
//     largest x+y or the reverse point with the smallest, ties to the
//     higher diagonal, forward only if it has consumed more lines; again the
//     explored part is solved minimally, the rest recursively.
//
// Below 65,533 lines maxCost is 256, so the cut comes before the snake rule
// can apply. Every search stops after at most maxCost edits per direction,
// and a part solved minimally needs at most about as many, so the work is
// that of git's own diff, a search of a few hundred edits per cut.

const (
	// keepLineBuffers is the largest element count of a per-line buffer kept
	// between calls: one huge file should not pin its buffers for the rest of
	// the walk.
	keepLineBuffers = 1 << 20
	// discardWindow is how many lines on each side of a repeated line stage
	// 3 looks at.
	discardWindow = 100
	// maxRepeatLimit caps the number of matches that makes a line repeated.
	maxRepeatLimit = 1024
	// minDiscardUnique is the fewest unique lines around a repeated line that
	// can get it discarded: more than 3*(1+1).
	minDiscardUnique = 7
)

// lineCounter counts inserted and deleted lines between two texts; it may
// keep buffers between calls; not safe for concurrent use.
type lineCounter struct {
	seed    maphash.Seed
	seeded  bool
	minimal bool // for tests: no discarding, no heuristics, a minimal count
	table   []int32
	classes []lineClass
	ids     [2][]int32 // class of each changed line, per side
	seq     [2][]int32 // the lines stage 4 matches, per side
	kinds   []uint8
	sums    []int32
	vf, vb  []int
	// trimmed are the lines both sides share (stage 1), lines[side] the
	// side's line count; counted says that the classes hold the
	// occurrences among the trimmed lines.
	trimmed [2][]byte
	lines   [2]int
	counted bool
}

// lineClass is one distinct line and how often it occurs on each side.
type lineClass struct {
	hash   uint64
	line   []byte
	n      [2]int32 // occurrences among each side's changed lines
	common int32    // occurrences among the trimmed lines, once counted
}

// count returns the lines inserted (in b, not matched in a) and deleted (in
// a, not matched in b).
func (lc *lineCounter) count(a, b []byte) (ins, del int) {
	whole := a
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
	lc.trimmed = [2][]byte{whole[:p], whole[len(whole)-s:]}
	lc.lines = [2]int{na, nb}

	// Stage 3: drop the lines without a counterpart, and the repeated lines
	// discarded among them. Counting the trimmed lines costs a pass over
	// the whole text: only when a line may be discarded as repeated.
	unmatched := [2]int{lc.unmatched(0), lc.unmatched(1)}
	if !lc.minimal && max(unmatched[0], unmatched[1]) >= minDiscardUnique {
		lc.countTrimmed()
	}
	x, _ := lc.keep(0, false)
	y, _ := lc.keep(1, false)

	// Stage 4: the longest common subsequence of what is left.
	var common int
	if lc.minimal {
		common = (len(x) + len(y) - lc.distance(x, y, math.MaxInt)) / 2
	} else if d := lc.distance(x, y, heurMinCost); d >= 0 && d+unmatched[0]+unmatched[1] <= 2*heurMinCost {
		common = (len(x) + len(y) - d) / 2
	} else {
		// git's search may give up minimality. It runs on the lines stage
		// 3 keeps including those matched only among the trimmed lines:
		// they cost an edit each but shift its figures. Minimal still if
		// they leave D within 2*heurMinCost.
		lc.countTrimmed()
		x, extraX := lc.keep(0, true)
		y, extraY := lc.keep(1, true)
		if d >= 0 && d+extraX+extraY <= 2*heurMinCost {
			common = (len(x) + len(y) - extraX - extraY - d) / 2
		} else {
			common = lc.largeLCS(x, y, max(heurMaxCost, bogoSqrt(len(x)+len(y)+3)))
		}
	}
	lc.release()
	return nb - common, na - common
}

// unmatched is the number of lines of side whose class does not occur among
// the other side's changed lines.
func (lc *lineCounter) unmatched(side int) int {
	n := 0
	for _, id := range lc.ids[side] {
		if lc.classes[id].n[1-side] == 0 {
			n++
		}
	}
	return n
}

// countTrimmed counts the trimmed lines in the classes already made, adding
// none, and the lines of each side.
func (lc *lineCounter) countTrimmed() {
	if lc.counted {
		return
	}
	lc.counted = true
	mask := uint64(len(lc.table) - 1)
	for _, text := range lc.trimmed {
		for len(text) > 0 {
			end := bytes.IndexByte(text, '\n') + 1
			if end == 0 {
				end = len(text)
			}
			line := text[:end]
			text = text[end:]
			lc.lines[0]++
			lc.lines[1]++
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
}

// Line kinds in stage 3.
const (
	kindKept      = iota // some matches: stays
	kindUnique           // no match on the other side: discarded
	kindRepeated         // many matches: discarded amid unique lines
	kindDiscarded        // a repeated line discarded
)

// keep returns the class ids of the lines of side that stage 4 matches:
// without the unique lines, and, once the trimmed lines are counted, without
// the repeated lines discarded among unique ones. Lines matched only among
// the trimmed lines are left out too unless all is set; extra is how many
// of them are in.
func (lc *lineCounter) keep(side int, all bool) (seq []int32, extra int) {
	ids, out := lc.ids[side], lc.seq[side][:0]
	if !lc.counted {
		for _, id := range ids {
			if lc.classes[id].n[1-side] > 0 {
				out = append(out, id)
			}
		}
		lc.seq[side] = out
		return out, 0
	}
	// A line is repeated if its matches (in the whole other side, trimmed
	// lines included) reach 2^ceil(b/2), b the bit length of this side's
	// line count: about its square root.
	repeat := int32(min(bogoSqrt(lc.lines[side]), maxRepeatLimit))
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
	lc.discardRepeated(kinds)
	for i, id := range ids {
		if kinds[i] != kindKept && kinds[i] != kindRepeated {
			continue
		}
		switch {
		case lc.classes[id].n[1-side] > 0:
			out = append(out, id)
		case all:
			out = append(out, id)
			extra++
		}
	}
	lc.seq[side] = out
	return out, extra
}

// discardRepeated marks the repeated lines that are discarded: those with,
// within discardWindow lines before and after and not past a kept line,
// unique lines on both sides and more than three times as many unique lines
// as repeated ones (the line itself counted twice). Decisions depend on the
// kinds alone, not on one another: they are read from prefix sums of the
// unique and repeated lines, taken before any mark.
func (lc *lineCounter) discardRepeated(kinds []uint8) {
	n := len(kinds)
	if cap(lc.sums) < 2*(n+1) {
		lc.sums = make([]int32, 2*(n+1))
	}
	unique, repeated := lc.sums[:n+1], lc.sums[n+1:2*(n+1)]
	unique[0], repeated[0] = 0, 0
	for i, k := range kinds {
		unique[i+1], repeated[i+1] = unique[i], repeated[i]
		switch k {
		case kindUnique:
			unique[i+1]++
		case kindRepeated:
			repeated[i+1]++
		}
	}
	start, next := 0, 0 // the run of lines that are not kept around i
	for i := 0; i < n; i++ {
		switch kinds[i] {
		case kindKept:
			start = i + 1
			continue
		case kindUnique:
			continue
		}
		if next < i {
			for next = i; next < n && kinds[next] != kindKept; next++ {
			}
		}
		end := min(next, i+1+discardWindow)
		lo := max(start, i-discardWindow)
		u0, r0 := unique[i]-unique[lo], repeated[i]-repeated[lo]
		u1, r1 := unique[end]-unique[i+1], repeated[end]-repeated[i+1]
		if u0 > 0 && u1 > 0 && u0+u1 > 3*(r0+r1+2) {
			kinds[i] = kindDiscarded
		}
	}
}

// bogoSqrt is 2^ceil(b/2) for b the bit length of n: a power of two between
// sqrt(n) and 2*sqrt(n).
func bogoSqrt(n int) int {
	return 1 << ((bits.Len(uint(n)) + 1) / 2)
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
	lc.trimmed, lc.counted = [2][]byte{}, false
	clear(lc.classes)
	lc.classes = lc.classes[:0]
	if cap(lc.table) > keepLineBuffers {
		lc.table = nil
	}
	if cap(lc.classes) > keepLineBuffers {
		lc.classes = nil
	}
	for i := range lc.ids {
		if cap(lc.ids[i]) > keepLineBuffers {
			lc.ids[i] = nil
		}
		if cap(lc.seq[i]) > keepLineBuffers {
			lc.seq[i] = nil
		}
	}
	if cap(lc.kinds) > keepLineBuffers {
		lc.kinds, lc.sums = nil, nil
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
