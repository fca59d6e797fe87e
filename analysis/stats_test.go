package analysis

import (
	"errors"
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

func TestFisherExactAgainstPublishedTables(t *testing.T) {
	for _, tc := range []struct {
		name       string
		a, b, c, d int
		p          float64
	}{
		// Fisher's lady tasting tea (The Design of Experiments, 1935):
		// R's fisher.test(matrix(c(3, 1, 1, 3), 2)) gives p = 0.4857.
		{"tea tasting", 3, 1, 1, 3, 0.4857},
		// The dieting example of the Fisher's exact test article
		// (Wikipedia): men 1 dieting 11 not, women 9 and 3: p = 0.002759.
		{"dieting", 1, 9, 11, 3, 0.002759},
		// A table with no association at all.
		{"independent", 10, 10, 10, 10, 1},
		// Agresti, Categorical Data Analysis, 3rd ed., table 3.8 (tea
		// tasting again, transposed): the same p.
		{"transposed", 3, 1, 1, 3, 0.4857},
	} {
		if got := FisherExact(tc.a, tc.b, tc.c, tc.d); !near(got, tc.p, 5e-5) {
			t.Errorf("%s: p = %.6f, want %.6f", tc.name, got, tc.p)
		}
	}
}

func TestOddsRatioWoolfInterval(t *testing.T) {
	// Computed by hand: OR = 1·3 / (9·11) = 0.030303; the log's standard
	// error is √(1 + 1/9 + 1/11 + 1/3) = 1.239094, so the interval is
	// exp(−3.496508 ∓ 1.959964 · 1.239094) = [0.002672, 0.343720].
	or, ci, corrected := OddsRatio(1, 9, 11, 3)
	if !near(or, 0.030303, 1e-6) || !near(ci.Lo, 0.002672, 1e-6) || !near(ci.Hi, 0.343720, 1e-6) || corrected {
		t.Errorf("OR = %.6f [%.6f, %.6f] corrected=%v", or, ci.Lo, ci.Hi, corrected)
	}
	// A zero cell: 0.5 added to every cell, (10.5 · 10.5) / (0.5 · 0.5).
	if or, _, corrected := OddsRatio(10, 0, 0, 10); !corrected || !near(or, 441, 1e-9) {
		t.Errorf("zero cells: OR %v corrected %v, want 441 corrected", or, corrected)
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

func TestHolm(t *testing.T) {
	got := Holm([]float64{0.01, 0.04, 0.03, 0.5})
	want := []float64{0.04, 0.09, 0.09, 0.5}
	for i := range want {
		if !near(got[i], want[i], 1e-12) {
			t.Fatalf("Holm = %v, want %v", got, want)
		}
	}
}

func TestRepoMeanCountsRepositoriesNotRows(t *testing.T) {
	big := make([]float64, 100)
	for i := range big {
		big[i] = 1
	}
	groups := [][]float64{big, {0, 0}, {0}, {0, 0, 0}, {0}}
	est, ci := RepoMean(groups, 2000, 1)
	if !near(est, 0.2, 1e-12) {
		t.Errorf("mean of repository means %v, want 0.2 (the pooled mean would be 0.93)", est)
	}
	if ci.Lo > 0.2 || ci.Hi < 0.2 || ci.Lo < 0 || ci.Hi > 1 {
		t.Errorf("interval %v should hold 0.2 within [0, 1]", ci)
	}
	if est2, ci2 := RepoMean(groups, 2000, 1); est2 != est || ci2 != ci {
		t.Errorf("same seed, different result: %v %v", ci, ci2)
	}
	if _, ci := RepoMean([][]float64{{0.5, 0.7}}, 100, 1); ci != (Interval{0.6, 0.6}) {
		t.Errorf("one repository: %v, want a point", ci)
	}
}

func TestLogisticMatchesTheTwoByTwoTable(t *testing.T) {
	// With one binary predictor the MLE coefficient is the log odds ratio
	// and its standard error Woolf's: an independent closed form.
	var x [][]float64
	var y []float64
	add := func(pred, out float64, n int) {
		for range n {
			x = append(x, []float64{pred})
			y = append(y, out)
		}
	}
	add(1, 1, 30) // a: predictor 1, outcome 1
	add(1, 0, 10) // b
	add(0, 1, 15) // c
	add(0, 0, 45) // d
	fit, err := Logistic(x, y)
	if err != nil {
		t.Fatal(err)
	}
	or, ci, _ := OddsRatio(30, 10, 15, 45)
	if !near(fit.Coef[1], math.Log(or), 1e-6) || !near(math.Exp(fit.CI[1].Lo), ci.Lo, 1e-5) || !near(math.Exp(fit.CI[1].Hi), ci.Hi, 1e-5) {
		t.Errorf("coefficient %v %v, want log OR %v with Woolf's interval %v", fit.Coef[1], fit.CI[1], math.Log(or), ci)
	}
	if !near(fit.Coef[0], math.Log(15.0/45), 1e-6) {
		t.Errorf("intercept %v, want the log odds of the reference group %v", fit.Coef[0], math.Log(15.0/45))
	}
	// Perfect separation has no finite estimate.
	if _, err := Logistic([][]float64{{1}, {1}, {0}, {0}}, []float64{1, 1, 0, 0}); !errors.Is(err, ErrSeparation) {
		t.Errorf("separated data: %v, want ErrSeparation", err)
	}
}

func TestSampleSizeAgainstTables(t *testing.T) {
	// p1 = 0.6 against p2 = 0.4, equal groups, two-sided 5 %, power 80 %:
	// 97 per group (Fleiss, Statistical Methods for Rates and Proportions,
	// the formula without continuity correction; G*Power gives the same).
	if got := SampleSize(0.6, 0.4, 1, 0.05, 0.8); got != 194 {
		t.Errorf("sample size %v, want 194 (97 + 97)", got)
	}
	if got := SampleSize(0.3, 0.3, 1, 0.05, 0.8); !math.IsInf(got, 1) {
		t.Errorf("no difference: %v, want +Inf", got)
	}
}
