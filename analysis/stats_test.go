package analysis

import (
	"encoding/json"
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
	est, ci, method := RepoMean(groups, 2000, 1)
	if !near(est, 0.2, 1e-12) || method != MethodRepoBootstrap {
		t.Errorf("mean of repository means %v by %s, want 0.2 (the pooled mean would be 0.93) by the cluster bootstrap", est, method)
	}
	if ci.Lo > 0.2 || ci.Hi < 0.2 || ci.Lo < 0 || ci.Hi > 1 {
		t.Errorf("interval %v should hold 0.2 within [0, 1]", ci)
	}
	if est2, ci2, _ := RepoMean(groups, 2000, 1); est2 != est || ci2 != ci {
		t.Errorf("same seed, different result: %v %v", ci, ci2)
	}
}

// repeat is n copies of v.
func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// TestRepoMeanInterval holds the choice of bootstrap and the width it
// gives on both sides of MinClusterRepos: the interval is zero-width
// only when everything resampled has one value.
func TestRepoMeanInterval(t *testing.T) {
	// 18 tasks of one repository, as a one-repository eval has them.
	varied := []float64{0, 0.5, 1, 0, 0.25, 0.5, 0, 1, 0, 0.2, 0.4, 0, 0.5, 0.3, 0, 1, 0.1, 0.45}
	constant := func(repos int) [][]float64 { // each repository's tasks alike, repositories apart
		var g [][]float64
		for i := range repos {
			g = append(g, repeat(float64(i)/float64(repos), 3))
		}
		return g
	}
	for _, tc := range []struct {
		name      string
		groups    [][]float64
		method    string
		zeroWidth bool
	}{
		{"one repository, varied tasks", [][]float64{varied}, MethodTaskBootstrap, false},
		{"one repository, identical tasks", [][]float64{repeat(0.4, 18)}, MethodTaskBootstrap, true},
		{"one repository, one task", [][]float64{{0.7}}, MethodTaskBootstrap, true},
		{"two repositories of one task each", [][]float64{{0}, {1}}, MethodTaskBootstrap, false},
		{"four repositories, alike within, apart between", constant(MinClusterRepos - 1), MethodTaskBootstrap, false},
		{"five repositories, alike within, apart between", constant(MinClusterRepos), MethodRepoBootstrap, false},
		{"eight repositories, varied tasks", [][]float64{varied, varied[:5], varied[5:], {0.2, 0.9}, {1}, {0}, varied[3:9], {0.5}}, MethodRepoBootstrap, false},
		// The cluster bootstrap resamples repositories: alike repository
		// means leave nothing to vary, whatever the tasks do.
		{"five repositories, the same mean", [][]float64{{0, 1}, {0.5}, {1, 0}, {0.25, 0.75}, {0.5, 0.5}}, MethodRepoBootstrap, true},
		{"empty repositories left out", [][]float64{{}, repeat(0.3, 4), {}}, MethodTaskBootstrap, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			est, ci, method := RepoMean(tc.groups, 2000, 1)
			if method != tc.method {
				t.Errorf("method %s, want %s", method, tc.method)
			}
			if ci.Lo > est || ci.Hi < est {
				t.Errorf("interval %v does not hold the mean %v", ci, est)
			}
			if zero := ci.Hi-ci.Lo == 0; zero != tc.zeroWidth {
				t.Errorf("interval %v around %v: zero width %v, want %v", ci, est, zero, tc.zeroWidth)
			}
			if _, again, _ := RepoMean(tc.groups, 2000, 1); again != ci {
				t.Errorf("same seed, intervals %v and %v", ci, again)
			}
		})
	}
	// One repository of 18 tasks: as wide as the tasks' spread says, not
	// certainty (the reported bug: recall 0.344 [0.344, 0.344]).
	if _, ci, _ := RepoMean([][]float64{varied}, 2000, 1); ci.Hi-ci.Lo < 0.1 {
		t.Errorf("one repository of 18 varied tasks: interval %v, want a width of the order of the standard error (about 0.2)", ci)
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
