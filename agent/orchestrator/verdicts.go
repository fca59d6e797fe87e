package orchestrator

import (
	"maps"
	"regexp"
	"slices"
	"strings"
)

// Verdicts are what one test run says, test by test: the tests that failed
// and those that passed, each named as the runner names it (go test's
// qualified by package). A failure the output does not name is still a
// failure: a Go package that did not build or whose run ended without a
// failed test is named "<package>: package failed", and a command that
// failed naming nothing is the whole suite, SuiteFailed.
type Verdicts struct {
	Failed, Passed []string
	TimedOut       bool
}

// SuiteFailed names the failure of a test command whose output names no
// failing test (a crash, a syntax error, a runner cra cannot read).
const SuiteFailed = "(the test command failed, naming no test)"

// PackageFailed ends the name of a Go package's failure that names no test.
const PackageFailed = ": package failed"

// The lines a test run names its tests by, per runner, passing and failing
// (failing.go reads the failing ones of more runners, for prompts). go test
// names its passes with -v, pytest with -rA or -v.
var (
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

// VerdictsOf reads a test run's result test by test.
func VerdictsOf(r Result) Verdicts {
	o := Verdicts{TimedOut: r.TimedOut}
	failed, passed := map[string]bool{}, map[string]bool{}
	var goPending []string // go test results waiting for their package's line
	goPendingFailed := false
	for _, line := range strings.Split(ansi.ReplaceAllString(r.Output, ""), "\n") {
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
				failed[m[2]+PackageFailed] = true
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
		// Another runner's failures (FailingTests reads jest,
		// vitest, mocha and cargo too), else the suite as a whole.
		for _, name := range FailingTests(r.Output) {
			failed[name] = true
		}
		if len(failed) == 0 {
			failed[SuiteFailed] = true
		}
	}
	for name := range failed {
		delete(passed, name) // reported both ways (a rerun plugin): it failed once
	}
	o.Failed = append([]string{}, slices.Sorted(maps.Keys(failed))...)
	o.Passed = append([]string{}, slices.Sorted(maps.Keys(passed))...)
	return o
}

// RanTests reports whether a run at least ran the tests: it passed, or it
// named a test that passed or failed (not only a package or the whole
// suite: an old commit whose toolchain is gone runs nothing).
func (o Verdicts) RanTests() bool {
	if len(o.Failed) == 0 || len(o.Passed) > 0 {
		return true
	}
	return slices.ContainsFunc(o.Failed, func(f string) bool {
		return f != SuiteFailed && !strings.HasSuffix(f, PackageFailed)
	})
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
