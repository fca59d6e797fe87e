package orchestrator

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// FailingTests on real outputs of each runner (testdata/failing: each
// runner run on a small suite with passing and failing tests).
func TestFailingTests(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"gotest.txt", []string{"TestSumWrong", "TestTable/off_by_one"}},
		{"pytest.txt", []string{"tests/test_py.py::TestAdd::test_wrong", "tests/test_py.py::test_param[2]", "tests/test_py.py::test_error"}},
		{"unittest.txt", []string{"tests.test_sum.TestAdd.test_error", "tests.test_sum.TestAdd.test_wrong"}},
		{"jest.txt", []string{"sum › adds wrongly", "sum › nested › throws"}},
		{"vitest.txt", []string{"sum.vitest.test.js > sum > adds wrongly", "sum.vitest.test.js > sum > nested > throws"}},
		{"mocha.txt", []string{"sum adds wrongly", "sum nested throws"}},
		{"cargo.txt", []string{"tests::adds_wrong", "tests::nested::panics"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "failing", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := FailingTests(string(b)); !slices.Equal(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
	if got := FailingTests("ok  \texample.com/x\t0.01s\nPASS\n"); got != nil {
		t.Errorf("a passing run names %q", got)
	}
	// Python 3.10 and older: the test name is not in the parentheses.
	if got := FailingTests("FAIL: test_wrong (tests.test_sum.TestAdd)\n"); !slices.Equal(got, []string{"tests.test_sum.TestAdd.test_wrong"}) {
		t.Errorf("unittest before 3.11: %q", got)
	}
}
