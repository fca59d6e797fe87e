package analysis

import (
	"reflect"
	"testing"

	"github.com/cra-dev/cra/kb"
)

func outcome(run int64, task, repo string, success bool, correct map[string]bool) kb.EvalOutcome {
	o := kb.EvalOutcome{EvalRunID: run, TaskID: task, RepoPath: repo, Scores: map[string]map[string]float64{EndToEnd: {MetricSuccess: b01(success)}}}
	for s, ok := range correct {
		o.Scores[s] = map[string]float64{MetricCorrect: b01(ok)}
	}
	return o
}

func TestFirstErrorAttribution(t *testing.T) {
	runs := []kb.EvalRunInfo{{ID: 1, Name: "n", Split: "validation"}}
	for name, tc := range map[string]struct {
		outcomes     []kb.EvalOutcome
		charged      map[string]int
		unattributed int
	}{
		"earliest wrong stage is charged": {[]kb.EvalOutcome{
			outcome(1, "a", "/r", false, map[string]bool{"scope": false, "precision": false, "implement": false}),
			outcome(1, "b", "/r", false, map[string]bool{"scope": true, "precision": false, "implement": false}),
			outcome(1, "c", "/r", false, map[string]bool{"scope": true, "implement": false}),
		}, map[string]int{"scope": 1, "precision": 1, "implement": 1}, 0},
		"no wrong stage is unattributed": {[]kb.EvalOutcome{
			outcome(1, "a", "/r", false, map[string]bool{"scope": true, "precision": true}),
			outcome(1, "b", "/r", false, map[string]bool{"scope": false}),
		}, map[string]int{"scope": 1}, 1},
		"successes are never charged": {[]kb.EvalOutcome{
			outcome(1, "a", "/r", true, map[string]bool{"scope": false}),
			outcome(1, "b", "/r", false, map[string]bool{"scope": true}),
		}, map[string]int{}, 1},
		"a stage not scored is skipped": {[]kb.EvalOutcome{
			outcome(1, "a", "/r", false, map[string]bool{"plan": false}),
		}, map[string]int{"plan": 1}, 0},
	} {
		e := Analyze(Input{Runs: runs, Outcomes: tc.outcomes})
		got := map[string]int{}
		for _, s := range e.Stages {
			if s.Blame.K > 0 {
				got[s.Stage] = s.Blame.K
			}
			if s.Blame.N != e.Failures {
				t.Errorf("%s: %s blamed out of %d, want out of the %d failures", name, s.Stage, s.Blame.N, e.Failures)
			}
		}
		if !reflect.DeepEqual(got, tc.charged) || e.Unattributed.K != tc.unattributed {
			t.Errorf("%s: charged %v, unattributed %d; want %v and %d", name, got, e.Unattributed.K, tc.charged, tc.unattributed)
		}
	}
}

func TestOraclePairing(t *testing.T) {
	// Two plain runs: "a" (older, same name as the oracle run) and "b"
	// (newer, more tasks). The oracle run pairs with "a" by name.
	runs := []kb.EvalRunInfo{{ID: 1, Name: "a"}, {ID: 2, Name: "b"}, {ID: 3, Name: "a", Oracle: []string{"scope"}}, {ID: 4, Name: "c", Oracle: []string{"scope", "plan"}}}
	var outs []kb.EvalOutcome
	for i, task := range []string{"t1", "t2", "t3", "t4"} {
		outs = append(outs, outcome(1, task, "/r", i == 0, nil), outcome(2, task, "/r", true, nil), outcome(3, task, "/r", true, nil))
	}
	outs = append(outs, outcome(2, "t5", "/r", true, nil), outcome(4, "t5", "/r", false, nil))
	lifts := Analyze(Input{Runs: runs, Outcomes: outs}).Lifts
	if len(lifts) != 2 {
		t.Fatalf("lifts %+v: want one per oracle set", lifts)
	}
	// Sorted by oracle set: "scope" then "scope,plan".
	if l := lifts[0]; !reflect.DeepEqual(l.Oracle, []string{"scope"}) || l.Pairs != 4 || l.Without.K != 1 || l.WithOracle.K != 4 || l.Lift != 0.75 {
		t.Errorf("scope lift %+v: want 4 pairs against run a, 1 → 4 successes", l)
	}
	if l := lifts[1]; l.Pairs != 1 || l.Lift != -1 || l.EvalName != "c" {
		t.Errorf("scope+plan lift %+v: want its one task paired with run b", l)
	}
}

func TestSolveEvidence(t *testing.T) {
	var runs []kb.SolveRun
	add := func(n int, success, droppedTouched, retried bool) {
		for range n {
			r := kb.SolveRun{Success: success, Touched: []string{"a.py"}, Passes: []kb.SolvePass{{Type: "step_implement", Success: success, Attempts: 1}, {Type: "adjustment", Success: true}}}
			if droppedTouched {
				r.Dropped = []string{"a.py"}
			} else {
				r.Dropped = []string{"b.py"}
			}
			if retried {
				r.Passes[0].Attempts = 2
			}
			runs = append(runs, r)
		}
	}
	add(6, false, true, true)
	add(1, true, true, false)
	add(2, false, false, false)
	add(7, true, false, true)
	s := solveEvidence(runs)
	if s.Runs != 16 || s.Failed != 8 || s.DroppedTouchedRuns != 7 || s.Steps != 16 || s.Adjustments != 16 {
		t.Fatalf("solve evidence %+v", s)
	}
	if a := s.ScopeDroppedTouched; a.FailIf.K != 6 || a.FailIf.N != 7 || a.FailIfNot.K != 2 || a.FailIfNot.N != 9 {
		t.Errorf("dropped-touched association %+v: want 6 of 7 against 2 of 9", a)
	}
	if a := s.Retried; a.FailIf.K != 6 || a.FailIf.N != 13 {
		t.Errorf("retried association %+v: want 6 of 13", a)
	}
	if s.AttemptsPerStep != 1.8125 || s.AdjustmentsFailed.K != 0 {
		t.Errorf("attempts per step %v, failed adjustments %d", s.AttemptsPerStep, s.AdjustmentsFailed.K)
	}
	if solveEvidence(nil) != nil {
		t.Error("no solve runs: want no solve evidence")
	}
}
