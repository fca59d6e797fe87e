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

// split finds where to cut x and y (non-empty, differing in their first and
// last elements), and whether each part must be solved minimally.
func (lc *lineCounter) split(x, y []int32, maxCost int) (ci, cj int, minLo, minHi bool) {
	n, m := len(x), len(y)
	size := n + m + 3
	if cap(lc.vf) < size {
		lc.vf, lc.vb = make([]int, size), make([]int, size)
	}
	off := m + 1
	vf, vb := lc.vf[:size], lc.vb[:size]
	delta := n - m
	odd := delta&1 != 0
	vf[off] = 0
	vb[off+delta] = n
	fmin, fmax := 0, 0
	bmin, bmax := delta, delta
	for e := 1; ; e++ {
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
				i = lo + 1
			} else {
				i = hi
			}
			j := i - k
			for i < n && j < m && x[i] == y[j] {
				i++
				j++
			}
			vf[off+k] = i
			if odd && bmin <= k && k <= bmax && vb[off+k] <= i {
				return i, i - k, true, true
			}
		}
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
				i = lo
			} else {
				i = hi - 1
			}
			j := i - k
			for i > 0 && j > 0 && x[i-1] == y[j-1] {
				i--
				j--
			}
			vb[off+k] = i
			if !odd && fmin <= k && k <= fmax && i <= vf[off+k] {
				return i, i - k, true, true
			}
		}
		if e > heurMinCost {
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
				return ci, cj, true, false
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
				return ci, cj, false, true
			}
		}
		if e >= maxCost {
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
				return fi, fbest - fi, true, false
			}
			return bi, bbest - bi, false, true
		}
	}
}

func snakeBefore(x, y []int32, i, j, n int) bool {
	for t := 1; t <= n; t++ {
		if x[i-t] != y[j-t] {
			return false
		}
	}
	return true
}

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
