package main

import (
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/eval"
	"github.com/cra-dev/cra/internal/stats"
)

// TestPrintEvalSaysWhatTheIntervalsResample: the scoreboard says when a
// mean's interval resampled tasks (fewer repositories than the cluster
// bootstrap needs), and only then.
func TestPrintEvalSaysWhatTheIntervalsResample(t *testing.T) {
	for _, tc := range []struct {
		method string
		note   bool
	}{
		{stats.MethodTaskBootstrap, true},
		{stats.MethodRepoBootstrap, false},
	} {
		var out strings.Builder
		rep := &eval.Report{Name: "nightly", Scores: []eval.StageScore{
			{Stage: "task_analysis", Metric: "correct", N: 18, Repos: 1, Mean: 0.5, Interval: stats.Wilson(9, 18), Method: stats.MethodWilson},
			{Stage: "task_analysis", Metric: "recall", N: 18, Repos: 1, Mean: 0.344, Interval: stats.Interval{Lo: 0.21, Hi: 0.48}, Method: tc.method},
		}}
		if err := (&app{stdout: &out}).printEval(rep); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(out.String(), "their intervals resample tasks"); got != tc.note || !strings.Contains(out.String(), "[0.210, 0.480]") {
			t.Errorf("%s: note %v, want %v:\n%s", tc.method, got, tc.note, out.String())
		}
	}
}
