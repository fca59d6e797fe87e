package adapters

import (
	"testing"

	"github.com/cra-dev/cra/agent/eval"
	"github.com/cra-dev/cra/internal/stats"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

func diff(stage string, lo, hi float64) eval.Diff {
	return eval.Diff{Stage: stage, Metric: eval.MetricCorrect, N: 20, This: 0.5, Other: 0.5, Interval: stats.Interval{Lo: lo, Hi: hi}}
}

// Each condition on both sides of its bound: a target's lower bound above
// 0 (not at it), end to end's at least −max_regression (at it passes),
// another stage's upper bound below 0 fails (at 0 passes); a target or
// end to end without paired tasks fails.
func TestJudge(t *testing.T) {
	e2e := func(lo float64) eval.Diff {
		d := diff(eval.StageEndToEnd, lo, 0.3)
		d.Metric = eval.MetricSuccess
		return d
	}
	scope, impl, prec := schema.StageScope, schema.StageImplement, schema.StagePrecision
	for _, c := range []struct {
		name   string
		diffs  []eval.Diff
		passed map[string]bool
	}{
		{"all hold", []eval.Diff{diff(scope, 0.01, 0.4), e2e(-0.02), diff(prec, -0.3, 0)},
			map[string]bool{CondTargetImproves + ":scope": true, CondEndToEnd: true, CondNoOtherFalls + ":precision": true}},
		{"target at 0", []eval.Diff{diff(scope, 0, 0.4), e2e(0.1)},
			map[string]bool{CondTargetImproves + ":scope": false, CondEndToEnd: true}},
		{"end to end past the bound", []eval.Diff{diff(scope, 0.1, 0.4), e2e(-0.0201)},
			map[string]bool{CondTargetImproves + ":scope": true, CondEndToEnd: false}},
		{"another stage falls", []eval.Diff{diff(scope, 0.1, 0.4), e2e(0), diff(prec, -0.5, -0.0001)},
			map[string]bool{CondTargetImproves + ":scope": true, CondEndToEnd: true, CondNoOtherFalls + ":precision": false}},
		{"implement falls", []eval.Diff{diff(scope, 0.1, 0.4), e2e(0), diff(impl, -0.5, -0.1)},
			map[string]bool{CondTargetImproves + ":scope": true, CondEndToEnd: true, CondNoOtherFalls + ":implement": false}},
		{"no evidence", nil, map[string]bool{CondTargetImproves + ":scope": false, CondEndToEnd: false}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := judge(c.diffs, []string{scope}, 0.02)
			if len(got) != len(c.passed) {
				t.Fatalf("conditions %+v, want %v", got, c.passed)
			}
			for _, g := range got {
				if want, ok := c.passed[g.Name]; !ok || want != g.Passed {
					t.Errorf("%s passed=%v, want %v (%v)", g.Name, g.Passed, want, ok)
				}
			}
			if allPassed(got) != (c.name == "all hold") {
				t.Errorf("verdict %v", allPassed(got))
			}
		})
	}
}

// A selected task is trained on when a train row names it, or, where rows
// carry no task id, comes from its repository and commit.
func TestTrainedOn(t *testing.T) {
	tasks := []eval.Task{{ID: "t1", Repo: "/r", Commit: "c1"}, {ID: "t2", Repo: "/r", Commit: "c2"}, {ID: "t3", Repo: "/s", Commit: "c1"}}
	keys := []kb.TrainKey{{Repo: "/r", Commit: "c1"}, {Repo: "/x", Commit: "c9", TaskID: "t3"}, {Repo: "/s", Commit: "c2"}}
	got := trainedOn(tasks, keys)
	if len(got) != 2 || got[0].ID != "t1" || got[1].ID != "t3" {
		t.Errorf("trained on %+v, want t1 and t3", got)
	}
}
