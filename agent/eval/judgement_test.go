package eval

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/orchestrator"
	"github.com/cra-dev/cra/internal/config"
)

// The judgement of a commit from its two runs, and the verdict on a run's
// result under it.
func TestDecideAndPasses(t *testing.T) {
	out := func(failed, passed []string) orchestrator.Verdicts {
		return orchestrator.Verdicts{Failed: failed, Passed: passed}
	}
	timedOut := orchestrator.Verdicts{TimedOut: true}
	for _, tc := range []struct {
		name               string
		atCommit, atParent orchestrator.Verdicts
		judgedBy, reason   string
		failToPass         []string
		// runs: a run's failures → whether it passes.
		runs map[string]bool
	}{
		{"a new test fails at the parent", out(nil, []string{"p::TestOld", "p::TestNew"}), out([]string{"p::TestNew"}, []string{"p::TestOld"}),
			JudgedByTests, ReasonFailToPass, []string{"p::TestNew"},
			map[string]bool{"": true, "p::TestNew": false, "p::TestOld": false, "p::TestMine": false}},
		{"the package does not build at the parent", out(nil, []string{"p::TestOld", "p::TestNew"}), out([]string{"p: package failed"}, nil),
			JudgedByTests, ReasonFailToPass, []string{"p: package failed"},
			map[string]bool{"": true, "p: package failed": false, orchestrator.SuiteFailed: false}},
		{"a test failing at both is not the run's to fix", out([]string{"net::TestDial"}, []string{"p::TestNew"}), out([]string{"net::TestDial", "p::TestNew"}, nil),
			JudgedByTests, ReasonFailToPass, []string{"p::TestNew"},
			map[string]bool{"net::TestDial": true, "net::TestDial,p::TestNew": false}},
		{"the tests pass at the parent already", out(nil, []string{"p::TestA"}), out(nil, []string{"p::TestA"}),
			JudgedByReproduction, ReasonNoFailToPass, []string{}, nil},
		{"only tests failing at the commit fail at the parent", out([]string{"net::TestDial"}, nil), out([]string{"net::TestDial"}, nil),
			JudgedByReproduction, ReasonNoFailToPass, []string{}, nil},
		{"the commit fails naming no test", out([]string{orchestrator.SuiteFailed}, nil), out([]string{"p::TestNew"}, nil),
			JudgedByReproduction, ReasonCommitFails, []string{}, nil},
		{"nothing runs at the commit (no go.mod for the toolchain)", out([]string{"./...: package failed"}, nil), out([]string{"./...: package failed"}, nil),
			JudgedByReproduction, ReasonCommitFails, []string{}, nil},
		{"a package does not build at the commit, another's tests run", out([]string{"a: package failed"}, []string{"b::TestB"}), out([]string{"a: package failed", "b::TestNew"}, []string{"b::TestB"}),
			JudgedByTests, ReasonFailToPass, []string{"b::TestNew"}, map[string]bool{"a: package failed": true, "": true, "b::TestNew": false}},
		{"the tests hang at the parent", out(nil, []string{"p::TestA"}), timedOut,
			JudgedUndecidable, ReasonTimeoutAtParent, []string{}, nil},
		{"the tests hang at the commit", timedOut, out(nil, nil),
			JudgedUndecidable, ReasonTimeoutAtCommit, []string{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := decide(tc.atCommit, tc.atParent)
			if j.JudgedBy != tc.judgedBy || j.Reason != tc.reason || !reflect.DeepEqual(j.FailToPass, tc.failToPass) {
				t.Fatalf("decide = %s %s %q, want %s %s %q", j.JudgedBy, j.Reason, j.FailToPass, tc.judgedBy, tc.reason, tc.failToPass)
			}
			for failures, want := range tc.runs {
				var failed []string
				if failures != "" {
					failed = strings.Split(failures, ",")
				}
				if got := j.passes(orchestrator.Verdicts{Failed: failed}); got != want {
					t.Errorf("a run failing %q passes = %v, want %v", failed, got, want)
				}
			}
			if j.JudgedBy == JudgedByTests && j.passes(orchestrator.Verdicts{TimedOut: true}) {
				t.Error("a run whose tests timed out passes")
			}
		})
	}
}

func TestTestTimeout(t *testing.T) {
	tc := config.Testing{TimeoutSeconds: 600, EvalTimeoutFactor: 5, EvalTimeoutFloorSeconds: 30}
	for _, c := range []struct{ took, want time.Duration }{
		{time.Second, 30 * time.Second},        // the floor
		{20 * time.Second, 100 * time.Second},  // five times
		{300 * time.Second, 600 * time.Second}, // the cap
	} {
		if got := testTimeout(tc, c.took); got != c.want {
			t.Errorf("testTimeout(%s) = %s, want %s", c.took, got, c.want)
		}
	}
}

type steps struct{ got []string }

func (s *steps) Phase(string, int64) {}
func (s *steps) Add(int64)           {}
func (s *steps) Step(text string)    { s.got = append(s.got, text) }

// Each task's phases reach the progress line numbered in the order the
// tasks started, with the commit's short id.
func TestPhasesNameTheTaskAndWhatItDoes(t *testing.T) {
	p := &steps{}
	e := &evaluator{opts: Options{Progress: p}, tasks: 20}
	e.phases(Task{Commit: "aaaaaaaaaaaaaaaa"})
	phase := e.phases(Task{Commit: "c052ba6123456789"})
	phase("tests at the parent")
	phase("")
	want := []string{"task 2/20 c052ba6: tests at the parent", ""}
	if !reflect.DeepEqual(p.got, want) {
		t.Errorf("steps %q, want %q", p.got, want)
	}
}
