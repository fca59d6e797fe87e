package stats

import "testing"

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
