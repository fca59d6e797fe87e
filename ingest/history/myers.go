package history

import "math"

// The cost heuristics of git's search, as measured against git diff (see
// the header of linediff.go).
const (
	// heurMaxCost is the least number of edits per direction after which a
	// search gives up and cuts at its furthest point; inputs of n lines
	// (n > 65532) allow bogoSqrt(n+3) instead.
	heurMaxCost = 256
	// heurMinCost is the number of edits per direction after which a search
	// accepts a long snake (heurSnake matches) that has made good progress
	// (more than heurProgress lines per edit).
	heurMinCost  = 256
	heurSnake    = 20
	heurProgress = 4
)

// distance is the edit distance between x and y (the insertions and
// deletions of a shortest edit script), or -1 if it exceeds 2*limit.
func (lc *lineCounter) distance(x, y []int32, limit int) int {
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
	if len(x) == 0 || len(y) == 0 {
		return len(x) + len(y)
	}
	return lc.bisect(x, y, limit)
}

// bisect runs the bidirectional search on x and y, which are non-empty and
// differ in their first and in their last element, and returns their edit
// distance, or -1 if each direction has spent limit edits without the two
// meeting.
func (lc *lineCounter) bisect(x, y []int32, limit int) int {
	d, _, _, _, _ := lc.search(x, y, limit, false)
	return d
}

// split runs the same search with git's cost heuristics (git set), and
// returns where to cut x and y, x[:ci], y[:cj] below and the rest above, and
// whether each part is to be solved minimally. The header of linediff.go
// gives the rules.
func (lc *lineCounter) split(x, y []int32, maxCost int) (ci, cj int, minLo, minHi bool) {
	_, ci, cj, minLo, minHi = lc.search(x, y, maxCost, true)
	return ci, cj, minLo, minHi
}

// search is the bidirectional search of bisect and split. An overlap gives
// the distance d and the meeting point, with both parts minimal. Without
// git's heuristics, d is -1 once each direction has spent limit edits.
//
// Diagonal k holds the points (i, i-k). vf[k] is the largest i reached on k
// by a forward path with the current number of edits, vb[k] the smallest i
// reached by a reverse path from (n, m). Diagonals are clipped to [-m, n];
// the slots just outside the live range hold sentinels that never win.
// Values beyond the grid (i > n or i-k > m forward) can arise next to its
// edges; they never lead back into it and only ever confirm an overlap that
// a cheaper path has already produced.
func (lc *lineCounter) search(x, y []int32, limit int, git bool) (d, ci, cj int, minLo, minHi bool) {
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
				return 2*e - 1, i, i - k, true, true
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
				return 2 * e, i, i - k, true, true
			}
		}
		if !git {
			if e >= limit {
				return -1, 0, 0, false, false
			}
			continue
		}
		if e > heurMinCost {
			// A long snake with good progress; the distance from the
			// diagonal the direction started on counts against it.
			best := 0
			for k := fmin; k <= fmax; k += 2 {
				i := vf[off+k]
				j := i - k
				v := i + j - abs(k)
				if v > heurProgress*e && v > best && heurSnake <= i && i < n && heurSnake <= j && j < m && snakeBefore(x, y, i, j, heurSnake) {
					best, ci, cj = v, i, j
				}
			}
			if best > 0 {
				return -1, ci, cj, true, false
			}
			for k := bmin; k <= bmax; k += 2 {
				i := vb[off+k]
				j := i - k
				v := n - i + m - j - abs(k-delta)
				if v > heurProgress*e && v > best && 0 < i && i <= n-heurSnake && 0 < j && j <= m-heurSnake && snakeAfter(x, y, i, j, heurSnake) {
					best, ci, cj = v, i, j
				}
			}
			if best > 0 {
				return -1, ci, cj, false, true
			}
		}
		if e >= limit {
			// Give up: the furthest point, clipped to the grid.
			fbest, bbest := -1, math.MaxInt
			var fi, bi int
			for k := fmin; k <= fmax; k += 2 {
				i := min(vf[off+k], n)
				j := i - k
				if j > m {
					i, j = m+k, m
				}
				if i+j >= fbest {
					fbest, fi = i+j, i
				}
			}
			for k := bmin; k <= bmax; k += 2 {
				i := max(vb[off+k], 0)
				j := i - k
				if j < 0 {
					i, j = k, 0
				}
				if i+j <= bbest {
					bbest, bi = i+j, i
				}
			}
			if n+m-bbest < fbest {
				return -1, fi, fbest - fi, true, false
			}
			return -1, bi, bbest - bi, false, true
		}
	}
}

// largeLCS is the number of lines of x and y that git's divide and conquer
// matches when a search runs long enough for its cost heuristics to apply.
func (lc *lineCounter) largeLCS(x, y []int32, maxCost int) int {
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
		i, j, minLo, minHi := lc.split(x, y, maxCost)
		if minLo {
			common += (i + j - lc.distance(x[:i], y[:j], math.MaxInt)) / 2
		} else {
			common += lc.largeLCS(x[:i], y[:j], maxCost)
		}
		if minHi {
			return common + (len(x)-i+len(y)-j-lc.distance(x[i:], y[j:], math.MaxInt))/2
		}
		x, y = x[i:], y[j:]
	}
}

// snakeBefore reports whether the n lines before (i, j) match diagonally.
func snakeBefore(x, y []int32, i, j, n int) bool {
	for t := 1; t <= n; t++ {
		if x[i-t] != y[j-t] {
			return false
		}
	}
	return true
}

// snakeAfter reports whether the n lines from (i, j) on match diagonally.
func snakeAfter(x, y []int32, i, j, n int) bool {
	for t := 0; t < n; t++ {
		if x[i+t] != y[j+t] {
			return false
		}
	}
	return true
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
