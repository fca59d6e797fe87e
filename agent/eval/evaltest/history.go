package evaltest

import (
	"fmt"
	"testing"

	"github.com/cra-dev/cra/internal/gittest"
)

// ops are the calculator's operations, one commit each: the function in
// calc.py and its test in tests/test_calc.py.
var ops = []struct{ name, body, test string }{
	{"subtract", "return a - b", "self.assertEqual(calc.subtract(5, 3), 2)"},
	{"multiply", "return a * b", "self.assertEqual(calc.multiply(4, 3), 12)"},
	{"maximum", "return a if a > b else b", "self.assertEqual(calc.maximum(4, 9), 9)"},
	{"minimum", "return a if a < b else b", "self.assertEqual(calc.minimum(4, 9), 4)"},
}

// CalcTestCommand runs CalcHistory's tests.
const CalcTestCommand = "python3 -m unittest discover -s tests -t ."

// CalcTasks is how many tasks bootstrap mines from CalcHistory.
var CalcTasks = len(ops)

// CalcHistory is a Python project whose every commit after the first adds
// an operation and its test: a history whose commits all pass their tests.
func CalcHistory(t testing.TB) *gittest.Repo {
	r := gittest.New(t)
	src := "def add(a, b):\n    return a + b\n"
	tests := "import unittest\n\nimport calc\n\n\nclass TestCalc(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(calc.add(1, 2), 3)\n"
	r.Write("calc.py", src)
	r.Write("tests/__init__.py", "")
	r.Write("tests/test_calc.py", tests)
	r.Write("README.md", "# calc\n")
	r.Commit("Create the calculator with its tests")
	for _, op := range ops {
		src += fmt.Sprintf("\n\ndef %s(a, b):\n    %s\n", op.name, op.body)
		tests += fmt.Sprintf("\n    def test_%s(self):\n        %s\n", op.name, op.test)
		r.Write("calc.py", src)
		r.Write("tests/test_calc.py", tests)
		r.Commit(fmt.Sprintf("Add the %s operation to calc.py with a test", op.name))
	}
	return r
}
