package orchestrator

import (
	"reflect"
	"strings"
	"testing"
)

// Real outputs of the runners (go test -v through GOFLAGS, unittest with
// and without -v, pytest -rA), read test by test.
func TestVerdictsOfNamesEveryTest(t *testing.T) {
	t.Parallel()
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
		res    Result
		failed []string
		passed []string
	}{
		{"go test -v over packages, one not building", Result{Output: goOut},
			[]string{"gv/broken: package failed", "gv/sub::TestF", "gv/sub::TestF/x"}, []string{"gv/sub::TestA", "gv::TestA"}},
		{"unittest", Result{Output: unittestQuiet},
			[]string{"tests.test_a.TestA.test_bad", "tests.test_a.TestA.test_err", "unittest.loader._FailedTest.tests.test_b"}, []string{}},
		{"unittest -v", Result{Output: unittestVerbose},
			[]string{"tests.test_a.TestA.test_bad"}, []string{"tests.test_a.TestA.test_ok"}},
		{"pytest -rA", Result{Output: pytestOut},
			[]string{"tests/test_x.py::test_b", "tests/test_y.py"}, []string{"tests/test_x.py::test_a"}},
		{"a failure naming no test", Result{Output: "Segmentation fault\n", ExitCode: 139},
			[]string{SuiteFailed}, []string{}},
		{"a pass naming no test", Result{Output: "all good\n", Passed: true}, []string{}, []string{}},
		{"a timeout", Result{Output: "=== RUN   TestHang\n", TimedOut: true}, []string{}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := VerdictsOf(tc.res)
			if !reflect.DeepEqual(o.Failed, tc.failed) || !reflect.DeepEqual(o.Passed, tc.passed) {
				t.Errorf("failed %q passed %q\nwant failed %q passed %q", o.Failed, o.Passed, tc.failed, tc.passed)
			}
			if o.TimedOut != tc.res.TimedOut {
				t.Errorf("timed out %v", o.TimedOut)
			}
		})
	}
}
