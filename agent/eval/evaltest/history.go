package evaltest

import (
	"fmt"
	"strings"
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
func CalcHistory(t testing.TB) *gittest.Repo { return CalcHistoryWith(t, CalcOptions{}) }

// CalcOptions shape a CalcHistoryWith.
type CalcOptions struct {
	// Scale is how many more commits add an operation (scaleK(a, b) =
	// a*K + b) and its test: each a task whose new test fails at its parent.
	Scale int
	// Doc adds a commit that gives add a docstring only: a task whose
	// tests pass at its parent already.
	Doc bool
	// Hang adds a commit whose parent's tests hang: a "wip" commit (not
	// mined: its message is noise) makes wait.wait sleep for an hour, and
	// the next makes it return at once.
	Hang bool
}

// Tasks is how many tasks bootstrap mines from a CalcHistoryWith(o).
func (o CalcOptions) Tasks() int {
	n := CalcTasks + o.Scale
	for _, b := range []bool{o.Doc, o.Hang} {
		if b {
			n++
		}
	}
	return n
}

// CalcHistoryWith is CalcHistory with the commits o adds after its own: a
// longer history of the same shape, cheap to judge (its suite runs in a
// fifth of a second where a Go one compiles).
func CalcHistoryWith(t testing.TB, o CalcOptions) *gittest.Repo {
	r := gittest.New(t)
	src := "def add(a, b):\n    return a + b\n"
	tests := "import unittest\n\nimport calc\n\n\nclass TestCalc(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(calc.add(1, 2), 3)\n"
	r.Write("calc.py", src)
	r.Write("tests/__init__.py", "")
	r.Write("tests/test_calc.py", tests)
	r.Write("README.md", "# calc\n")
	r.Commit("Create the calculator with its tests")
	add := func(name, body, test string) {
		src += fmt.Sprintf("\n\ndef %s(a, b):\n    %s\n", name, body)
		tests += fmt.Sprintf("\n    def test_%s(self):\n        %s\n", name, test)
		r.Write("calc.py", src)
		r.Write("tests/test_calc.py", tests)
		r.Commit(fmt.Sprintf("Add the %s operation to calc.py with a test", name))
	}
	for _, op := range ops {
		add(op.name, op.body, op.test)
	}
	if o.Doc {
		src = strings.Replace(src, "def add(a, b):\n", "def add(a, b):\n    \"\"\"Return the sum of a and b.\"\"\"\n", 1)
		r.Write("calc.py", src)
		r.Commit("Document what the add function returns")
	}
	for i := range o.Scale {
		k := i + 2
		add(fmt.Sprintf("scale%d", k), fmt.Sprintf("return a * %d + b", k), fmt.Sprintf("self.assertEqual(calc.scale%d(3, 1), %d)", k, 3*k+1))
	}
	if o.Hang {
		hang(r, "wait.py", "import time\n\n\ndef wait():\n    time.sleep(3600)\n", "def wait():\n    \"\"\"Return at once.\"\"\"\n",
			"tests/test_wait.py", "import unittest\n\nimport wait\n\n\nclass TestWait(unittest.TestCase):\n    def test_wait(self):\n        wait.wait()\n")
	}
	return r
}

// GoTestCommand runs GoHistory's tests.
const GoTestCommand = "go test ./..."

// GoOptions shape a GoHistory.
type GoOptions struct {
	// Ops is how many commits add an operation to calc.go and its test to
	// calc_test.go: each a task whose new test fails at its parent.
	Ops int
	// Doc adds a commit that changes a doc comment only: a task whose
	// tests pass at its parent already.
	Doc bool
	// Hang adds a commit whose parent's tests hang: a "wip" commit (not
	// mined: its message is noise) makes Wait sleep for an hour, and the
	// next makes it return at once.
	Hang bool
}

// GoTasks is how many tasks bootstrap mines from a GoHistory.
func (o GoOptions) GoTasks() int {
	n := o.Ops
	if o.Doc {
		n++
	}
	if o.Hang {
		n++
	}
	return n
}

// GoHistory is a Go module with a real test suite (GoTestCommand) whose
// commits are shaped by o.
func GoHistory(t testing.TB, o GoOptions) *gittest.Repo {
	r := gittest.New(t)
	src := "package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n"
	tests := "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(Add(1, 2))\n\t}\n}\n"
	r.Write("go.mod", "module example.com/calc\n\ngo 1.21\n")
	r.Write("calc.go", src)
	r.Write("calc_test.go", tests)
	r.Commit("Create the calculator module with its tests")
	for i := range o.Ops {
		k := i + 2
		name := fmt.Sprintf("Scale%d", k)
		src += fmt.Sprintf("\n// %s multiplies a by %d and adds b.\nfunc %s(a, b int) int { return a*%d + b }\n", name, k, name, k)
		tests += fmt.Sprintf("\nfunc Test%s(t *testing.T) {\n\tif got := %s(3, 1); got != %d {\n\t\tt.Fatal(got)\n\t}\n}\n", name, name, 3*k+1)
		r.Write("calc.go", src)
		r.Write("calc_test.go", tests)
		r.Commit(fmt.Sprintf("Add the %s operation to calc.go with a test", strings.ToLower(name)))
		if o.Doc && i == o.Ops/2 {
			src = strings.Replace(src, "// Add adds.", "// Add returns the sum of a and b.", 1)
			r.Write("calc.go", src)
			r.Commit("Document what the add function returns")
		}
	}
	if o.Hang {
		hang(r, "wait.go", "package calc\n\nimport \"time\"\n\n// Wait waits.\nfunc Wait() { time.Sleep(time.Hour) }\n",
			"package calc\n\n// Wait returns at once.\nfunc Wait() {}\n",
			"wait_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestWait(t *testing.T) { Wait() }\n")
	}
	return r
}

// hang commits source (hanging) and its test as "wip" (noise, not mined),
// then source returning at once: a task whose tests hang at its parent.
func hang(r *gittest.Repo, source, hanging, returning, test, testText string) {
	r.Write(source, hanging)
	r.Write(test, testText)
	r.Commit("wip")
	r.Write(source, returning)
	r.Commit("Make the wait function return at once")
}
