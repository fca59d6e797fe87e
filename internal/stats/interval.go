package stats

import (
	"encoding/json"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Z95 is the standard normal quantile of a two-sided 95 % interval: every
// interval here is one.
var Z95 = distuv.UnitNormal.Quantile(0.975)

// Interval is a two-sided 95 % interval; it marshals as [lo, hi], or as
// null when there is none (NoInterval).
type Interval struct{ Lo, Hi float64 }

// NoInterval is the interval of a figure that cannot have one, such as a
// per-repository figure when there is one repository: there is nothing
// to compare it with, and an interval would claim otherwise.
func NoInterval() Interval { return Interval{math.NaN(), math.NaN()} }

// Known reports whether the interval is one (not NoInterval).
func (iv Interval) Known() bool { return !math.IsNaN(iv.Lo) && !math.IsNaN(iv.Hi) }

func (iv Interval) MarshalJSON() ([]byte, error) {
	if !iv.Known() {
		return []byte("null"), nil
	}
	return json.Marshal([2]float64{Round4(iv.Lo), Round4(iv.Hi)})
}

func (iv *Interval) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*iv = NoInterval()
		return nil
	}
	var a [2]float64
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	iv.Lo, iv.Hi = a[0], a[1]
	return nil
}

// Excludes reports whether x lies outside the interval.
func (iv Interval) Excludes(x float64) bool { return x < iv.Lo || x > iv.Hi }

// Round4 keeps four decimals: what the reports show, and what plan.json
// and the scoreboards record, so they never disagree.
func Round4(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	return math.Round(x*1e4) / 1e4
}

// Wilson is the Wilson score interval of k successes in n trials; n = 0
// gives [0, 1].
func Wilson(k, n int) Interval {
	if n == 0 {
		return Interval{0, 1}
	}
	p, nf, z2 := float64(k)/float64(n), float64(n), Z95*Z95
	centre := (p + z2/(2*nf)) / (1 + z2/nf)
	half := Z95 / (1 + z2/nf) * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	return Interval{math.Max(0, centre-half), math.Min(1, centre+half)}
}

// PairedDifference is the difference p1 − p2 of two proportions measured
// on the same units, with Newcombe's square-and-add (hybrid score)
// interval (Newcombe 1998, method 10). both counts units with success
// under both conditions, only1 and only2 units with success under one,
// neither units with none.
func PairedDifference(both, only1, only2, neither int) (float64, Interval) {
	n := both + only1 + only2 + neither
	if n == 0 {
		return 0, Interval{-1, 1}
	}
	r1, r2 := both+only1, only2+neither // condition 1: success, failure
	c1, c2 := both+only2, only1+neither // condition 2: success, failure
	p1, p2 := float64(r1)/float64(n), float64(c1)/float64(n)
	w1, w2 := Wilson(r1, n), Wilson(c1, n)
	// phi estimates the correlation of the two proportions, with
	// Newcombe's continuity correction of a positive association.
	phi := 0.0
	if r1 > 0 && r2 > 0 && c1 > 0 && c2 > 0 {
		prod := math.Sqrt(float64(r1) * float64(r2) * float64(c1) * float64(c2))
		switch a := float64(both*neither - only1*only2); {
		case a > float64(n)/2:
			phi = (a - float64(n)/2) / prod
		case a < 0:
			phi = a / prod
		}
	}
	d := p1 - p2
	lo := d - math.Sqrt(sq(p1-w1.Lo)+sq(w2.Hi-p2)-2*phi*(p1-w1.Lo)*(w2.Hi-p2))
	hi := d + math.Sqrt(sq(p2-w2.Lo)+sq(w1.Hi-p1)-2*phi*(p2-w2.Lo)*(w1.Hi-p1))
	return d, Interval{lo, hi}
}

func sq(x float64) float64 { return x * x }
