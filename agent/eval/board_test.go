package eval

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/stats"
	"github.com/cra-dev/cra/kb/schema"
)

// results18 is 18 scored tasks spread over repos repositories: recall
// varying task by task, correct 1 in every third.
func results18(repos int) map[string]*result {
	out := map[string]*result{}
	for i := range 18 {
		out[fmt.Sprintf("t%02d", i)] = &result{repo: fmt.Sprintf("/repos/r%d", i%repos), scores: map[string]map[string]float64{
			schema.StageTaskAnalysis: {MetricRecall: float64(i%5) / 4, MetricCorrect: float64(btoi(i%3 == 0))},
		}}
	}
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestScoreboardIntervals: a mean's interval bootstraps tasks below
// stats.MinClusterRepos repositories and repositories from there on,
// and is never a point from 18 varied tasks of one repository (the bug:
// recall 18 0.344 [0.344, 0.344]); rates keep Wilson's.
func TestScoreboardIntervals(t *testing.T) {
	for _, tc := range []struct {
		repos  int
		method string
	}{
		{1, stats.MethodTaskBootstrap},
		{stats.MinClusterRepos - 1, stats.MethodTaskBootstrap},
		{stats.MinClusterRepos, stats.MethodRepoBootstrap},
		{6, stats.MethodRepoBootstrap},
	} {
		t.Run(fmt.Sprintf("%d repositories", tc.repos), func(t *testing.T) {
			board := scoreboard(results18(tc.repos), nil)
			got := map[string]StageScore{}
			for _, s := range board {
				got[s.Metric] = s
			}
			r, c := got[MetricRecall], got[MetricCorrect]
			if r.N != 18 || r.Repos != tc.repos || r.Method != tc.method {
				t.Errorf("recall over %d tasks, %d repositories, by %s: want 18, %d, %s", r.N, r.Repos, r.Method, tc.repos, tc.method)
			}
			if !(r.Interval.Lo < r.Mean && r.Mean < r.Interval.Hi) {
				t.Errorf("recall %.3f %v: want a nonzero interval around the mean", r.Mean, r.Interval)
			}
			if c.Method != stats.MethodWilson || c.Interval != stats.Wilson(6, 18) {
				t.Errorf("correct %v by %s: want Wilson's interval of 6 of 18", c.Interval, c.Method)
			}
			b, err := json.Marshal(r)
			if err != nil || !strings.Contains(string(b), `"method":"`+tc.method+`"`) || !strings.Contains(string(b), fmt.Sprintf(`"repos":%d`, tc.repos)) {
				t.Errorf("JSON %s (%v): want the method and the repositories", b, err)
			}
		})
	}
}
