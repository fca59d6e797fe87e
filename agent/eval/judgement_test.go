package eval

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/orchestrator"
	"github.com/cra-dev/cra/internal/config"
)

// Real outputs of the runners (go test -v through GOFLAGS, unittest with
// and without -v, pytest -rA), read test by test.
func TestOutcomeOfNamesEveryTest(t *testing.T) {
	goOut := strings.Join([]string{
		"=== RUN   TestA", "--- PASS: TestA (0.00s)", "PASS", "ok  \tgv\t(cached)",
		"# gv/broken [gv/broken.test]", "broken/b.go:2:23: undefined: undefined", "FAIL\tgv/broken [build failed]",
		"=== RUN   TestA", "--- PASS: TestA (0.00s)", "=== RUN   TestF", "=== RUN   TestF/x", "    s_test.go:4: no",
		"--- FAIL: TestF (0.00s)", "    --- FAIL: TestF/x (0.00s)", "FAIL", "FAIL\tgv/sub\t0.009s", "FAIL",
	}, "\n")
	unittestQuiet := strings.Join([]string{
		"FE.E", "======", "ERROR: test_err (tests.test_a.TestA.test_err)", "ValueError: x", "======",
		"ERROR: tests.test_b (unittest.loader._FailedTest.tests.test_b)", "ImportError: Failed to import test module: tests.test_b",
		"======", "FAIL: test_bad (tests.test_a.TestA)", "AssertionError: 1 != 2", "Ran 4 tests in 0.001s", "FAILED (failures=1, errors=2)",
	}, "\n")
	unittestVerbose := strings.Join([]string{
		"test_bad (tests.test_a.TestA.test_bad) ... FAIL", "test_ok (tests.test_a.TestA.test_ok) ... ok",
		"test_doc (tests.test_a.TestA.test_doc)", "Says what it does. ... ok", "FAIL: test_bad (tests.test_a.TestA.test_bad)",
	}, "\n")
	pytestOut := strings.Join([]string{
		"tests/test_x.py .F", "=========================== short test summary info ============================",
		"PASSED tests/test_x.py::test_a", "FAILED tests/test_x.py::test_b - assert 1 == 2",
		"ERROR tests/test_y.py - ModuleNotFoundError: No module named 'calc'", "1 failed, 1 passed, 1 error in 0.05s",
	}, "\n")
	for _, tc := range []struct {
		name   string
		res    orchestrator.Result
		failed []string
		passed []string
	}{
		{"go test -v over packages, one not building", orchestrator.Result{Output: goOut},
			[]string{"gv/broken: package failed", "gv/sub::TestF", "gv/sub::TestF/x"}, []string{"gv/sub::TestA", "gv::TestA"}},
		{"unittest", orchestrator.Result{Output: unittestQuiet},
			[]string{"tests.test_a.TestA.test_bad", "tests.test_a.TestA.test_err", "unittest.loader._FailedTest.tests.test_b"}, []string{}},
		{"unittest -v", orchestrator.Result{Output: unittestVerbose},
			[]string{"tests.test_a.TestA.test_bad"}, []string{"tests.test_a.TestA.test_ok"}},
		{"pytest -rA", orchestrator.Result{Output: pytestOut},
			[]string{"tests/test_x.py::test_b", "tests/test_y.py"}, []string{"tests/test_x.py::test_a"}},
		{"a failure naming no test", orchestrator.Result{Output: "Segmentation fault\n", ExitCode: 139},
			[]string{SuiteFailed}, []string{}},
		{"a pass naming no test", orchestrator.Result{Output: "all good\n", Passed: true}, []string{}, []string{}},
		{"a timeout", orchestrator.Result{Output: "=== RUN   TestHang\n", TimedOut: true}, []string{}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := outcomeOf(tc.res)
			if !reflect.DeepEqual(o.Failed, tc.failed) || !reflect.DeepEqual(o.Passed, tc.passed) {
				t.Errorf("failed %q passed %q\nwant failed %q passed %q", o.Failed, o.Passed, tc.failed, tc.passed)
			}
			if o.TimedOut != tc.res.TimedOut {
				t.Errorf("timed out %v", o.TimedOut)
			}
		})
	}
}

// The judgement of a commit from its two runs, and the verdict on a run's
// result under it.
func TestDecideAndPasses(t *testing.T) {
	out := func(failed, passed []string) outcome { return outcome{Failed: failed, Passed: passed} }
	timedOut := outcome{TimedOut: true}
	for _, tc := range []struct {
		name               string
		atCommit, atParent outcome
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
			map[string]bool{"": true, "p: package failed": false, SuiteFailed: false}},
		{"a test failing at both is not the run's to fix", out([]string{"net::TestDial"}, []string{"p::TestNew"}), out([]string{"net::TestDial", "p::TestNew"}, nil),
			JudgedByTests, ReasonFailToPass, []string{"p::TestNew"},
			map[string]bool{"net::TestDial": true, "net::TestDial,p::TestNew": false}},
		{"the tests pass at the parent already", out(nil, []string{"p::TestA"}), out(nil, []string{"p::TestA"}),
			JudgedByReproduction, ReasonNoFailToPass, []string{}, nil},
		{"only tests failing at the commit fail at the parent", out([]string{"net::TestDial"}, nil), out([]string{"net::TestDial"}, nil),
			JudgedByReproduction, ReasonNoFailToPass, []string{}, nil},
		{"the commit fails naming no test", out([]string{SuiteFailed}, nil), out([]string{"p::TestNew"}, nil),
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
				if got := j.passes(outcome{Failed: failed}); got != want {
					t.Errorf("a run failing %q passes = %v, want %v", failed, got, want)
				}
			}
			if j.JudgedBy == JudgedByTests && j.passes(outcome{TimedOut: true}) {
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
