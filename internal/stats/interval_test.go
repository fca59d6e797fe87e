package stats

import (
	"encoding/json"
	"math"
	"testing"
)

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// Reference values are published ones, computed by others.
func TestWilsonAgainstPublishedIntervals(t *testing.T) {
	// Newcombe (1998), "Two-sided confidence intervals for the single
	// proportion", Statistics in Medicine 17:857, Table II, method 3 (score
	// interval without continuity correction).
	for _, tc := range []struct {
		k, n   int
		lo, hi float64
	}{
		{81, 263, 0.2553, 0.3662},
		{15, 148, 0.0624, 0.1605},
		{0, 20, 0, 0.1611},
		{1, 29, 0.0061, 0.1718},
		{29, 29, 0.8830, 1},
	} {
		got := Wilson(tc.k, tc.n)
		if !near(got.Lo, tc.lo, 5e-5) || !near(got.Hi, tc.hi, 5e-5) {
			t.Errorf("Wilson(%d/%d) = [%.4f, %.4f], want [%.4f, %.4f]", tc.k, tc.n, got.Lo, got.Hi, tc.lo, tc.hi)
		}
	}
	if got := Wilson(0, 0); got != (Interval{0, 1}) {
		t.Errorf("Wilson(0/0) = %v: want the whole range", got)
	}
}

func TestPairedDifferenceAgainstPublishedInterval(t *testing.T) {
	// Fagerland, Lydersen & Laake, Statistical Analysis of Contingency
	// Tables (2017), chapter 8: complete response before and after
	// consolidation therapy (Cavo et al. 2012), table [[59, 6], [16, 80]];
	// the Newcombe square-and-add interval is -0.0621 (-0.1186 to -0.0046).
	d, ci := PairedDifference(59, 6, 16, 80)
	if !near(d, -0.0621, 5e-5) || !near(ci.Lo, -0.1186, 5e-5) || !near(ci.Hi, -0.0046, 5e-5) {
		t.Errorf("difference %.4f [%.4f, %.4f], want -0.0621 [-0.1186, -0.0046]", d, ci.Lo, ci.Hi)
	}
	if d, ci := PairedDifference(5, 0, 0, 5); d != 0 || ci.Excludes(0) {
		t.Errorf("no discordant pairs: %v %v, want 0 inside the interval", d, ci)
	}
}

func TestNoIntervalMarshalsAsNull(t *testing.T) {
	b, err := json.Marshal(struct{ CI Interval }{NoInterval()})
	if err != nil || string(b) != `{"CI":null}` {
		t.Fatalf("marshalled %s (%v), want a null interval", b, err)
	}
	var back struct{ CI Interval }
	if err := json.Unmarshal(b, &back); err != nil || back.CI.Known() {
		t.Errorf("unmarshalled %v (%v), want no interval", back.CI, err)
	}
	if iv := (Interval{0.1, 0.2}); !iv.Known() {
		t.Errorf("%v not known", iv)
	}
}
