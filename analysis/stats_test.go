package analysis

import (
	"errors"
	"math"
	"testing"
)

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

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

func TestHolm(t *testing.T) {
	got := Holm([]float64{0.01, 0.04, 0.03, 0.5})
	want := []float64{0.04, 0.09, 0.09, 0.5}
	for i := range want {
		if !near(got[i], want[i], 1e-12) {
			t.Fatalf("Holm = %v, want %v", got, want)
		}
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
