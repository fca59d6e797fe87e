package eval

import (
	"regexp"
	"slices"
	"strings"

	"github.com/cra-dev/cra/agent/orchestrator"
)

// outcome is what one test run says, test by test: the tests that failed
// and those that passed, each named as the runner names it (go test's
// qualified by package). A failure the output does not name is still a
// failure: a Go package that did not build or whose run ended without a
// failed test is named "<package>: package failed", and a command that
// failed naming nothing is the whole suite, SuiteFailed.
type outcome struct {
	Failed, Passed []string
	TimedOut       bool
}

// SuiteFailed names the failure of a test command whose output names no
// failing test (a crash, a syntax error, a runner cra cannot read).
const SuiteFailed = "(the test command failed, naming no test)"

// packageFailed ends the name of a Go package's failure that names no test.
const packageFailed = ": package failed"

// The lines a test run names its tests by, per runner. The judgement runs
// ask go test and pytest for every test's result (judgeEnv).
var (
	ansiCodes = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")
	// go test -v: "--- PASS: TestA (0.00s)", "    --- FAIL: TestA/sub (0.00s)".
	goResult = regexp.MustCompile(`^\s*--- (PASS|FAIL): (\S+)`)
	// go test's line per package: "ok  \tpkg\t0.1s", "FAIL\tpkg [build failed]",
	// "FAIL\tpkg\t0.2s".
	goPackage = regexp.MustCompile(`^(ok|FAIL)\s+(\S+)(?:\s|$)`)
	// pytest -rA summary: "PASSED tests/t.py::test_a", "FAILED tests/t.py::test_b - why",
	// "ERROR tests/t.py - ImportError" (a module that did not collect).
	pytestSummary = regexp.MustCompile(`^(PASSED|FAILED|ERROR) ([^\s(]\S*)`)
	// pytest -v: "tests/t.py::test_a PASSED  [ 50%]".
	pytestVerbose = regexp.MustCompile(`^(\S+::\S+) (PASSED|FAILED|ERROR)\b`)
	// unittest -v: "test_a (pkg.mod.TestA.test_a) ... ok"; failures in every
	// mode: "FAIL: test_b (pkg.mod.TestA.test_b)".
	unittestVerbose = regexp.MustCompile(`^([\w.]+) \(([\w.]+)\)(?: \S.*)? \.\.\. (ok|FAIL|ERROR)$`)
	unittestFailure = regexp.MustCompile(`^(?:FAIL|ERROR): ([\w.]+) \(([\w.]+)\)`)
)

// outcomeOf reads a test run's result test by test.
func outcomeOf(r orchestrator.Result) outcome {
	o := outcome{TimedOut: r.TimedOut}
	failed, passed := map[string]bool{}, map[string]bool{}
	var goPending []string // go test results waiting for their package's line
	goPendingFailed := false
	for _, line := range strings.Split(ansiCodes.ReplaceAllString(r.Output, ""), "\n") {
		line = strings.TrimRight(line, "\r")
		switch {
		case goResult.MatchString(line):
			m := goResult.FindStringSubmatch(line)
			goPending = append(goPending, m[1]+" "+m[2])
			goPendingFailed = goPendingFailed || m[1] == "FAIL"
		case goPackage.MatchString(line) && !strings.HasPrefix(line, "FAIL:"):
			m := goPackage.FindStringSubmatch(line)
			for _, p := range goPending {
				status, name, _ := strings.Cut(p, " ")
				if status == "FAIL" {
					failed[m[2]+"::"+name] = true
				} else {
					passed[m[2]+"::"+name] = true
				}
			}
			if m[1] == "FAIL" && !goPendingFailed {
				failed[m[2]+packageFailed] = true
			}
			goPending, goPendingFailed = nil, false
		case pytestSummary.MatchString(line):
			m := pytestSummary.FindStringSubmatch(line)
			mark(m[1] == "PASSED", m[2], passed, failed)
		case pytestVerbose.MatchString(line):
			m := pytestVerbose.FindStringSubmatch(line)
			mark(m[2] == "PASSED", m[1], passed, failed)
		case unittestVerbose.MatchString(line):
			m := unittestVerbose.FindStringSubmatch(line)
			mark(m[3] == "ok", unittestName(m[1], m[2]), passed, failed)
		case unittestFailure.MatchString(line):
			m := unittestFailure.FindStringSubmatch(line)
			failed[unittestName(m[1], m[2])] = true
		}
	}
	if len(failed) == 0 && !r.Passed && !r.TimedOut {
		// Another runner's failures (orchestrator.FailingTests reads jest,
		// vitest, mocha and cargo too), else the suite as a whole.
		for _, name := range orchestrator.FailingTests(r.Output) {
			failed[name] = true
		}
		if len(failed) == 0 {
			failed[SuiteFailed] = true
		}
	}
	for name := range failed {
		delete(passed, name) // reported both ways (a rerun plugin): it failed once
	}
	o.Failed, o.Passed = sortedKeys(failed), sortedKeys(passed)
	return o
}

func mark(ok bool, name string, passed, failed map[string]bool) {
	if ok {
		passed[name] = true
	} else {
		failed[name] = true
	}
}

// unittestName is a unittest test's id: module, class and method (Python
// 3.11 prints it whole, earlier versions without the method).
func unittestName(method, id string) string {
	if strings.HasSuffix(id, "."+method) {
		return id
	}
	return id + "." + method
}

// judgeEnv asks the runners of the judgement's test runs to name every
// test's result, not only the failures: go test's -v through GOFLAGS and
// pytest's -rA summary through PYTEST_ADDOPTS (added to what the
// environment already sets). Other runners are read as they print.
func judgeEnv(environ []string) []string {
	out := slices.Clone(environ)
	add := func(key, value string) {
		for i, kv := range out {
			if k, v, ok := strings.Cut(kv, "="); ok && k == key {
				out[i] = key + "=" + strings.TrimSpace(v+" "+value)
				return
			}
		}
		out = append(out, key+"="+value)
	}
	add("GOFLAGS", "-v")
	add("PYTEST_ADDOPTS", "-rA")
	return out
}
