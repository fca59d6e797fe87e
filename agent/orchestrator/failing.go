package orchestrator

import (
	"regexp"
	"slices"
	"strings"
)

// The lines that name a failing test, per runner, as the runners print
// them (testdata/failing holds real outputs of each).
var (
	ansi = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")
	// go test: "--- FAIL: TestName (0.00s)", subtests indented as Test/sub.
	goFail = regexp.MustCompile(`^\s*--- FAIL: (\S+)`)
	// pytest's short summary: "FAILED tests/x.py::TestA::test_b - why".
	pytestFail = regexp.MustCompile(`^(?:FAILED|ERROR) (\S+::\S+)`)
	// unittest: "FAIL: test_b (pkg.mod.TestA.test_b)" (3.11+) or
	// "FAIL: test_b (pkg.mod.TestA)".
	unittestFail = regexp.MustCompile(`^(?:FAIL|ERROR): (\w+) \(([\w.]+)\)`)
	// jest: "  ● suite › test".
	jestFail = regexp.MustCompile(`^\s*● (.+ › .+|[^›]+)$`)
	// vitest: " FAIL  file > suite > test".
	vitestFail = regexp.MustCompile(`^\s*FAIL\s+(\S+ > .+)$`)
	// cargo test: "test path::name ... FAILED".
	cargoFail = regexp.MustCompile(`^test (\S+) \.\.\. FAILED`)
	// mocha: "  1) suite" opening a failure's title, which runs over
	// deeper-indented lines to the one ending with ":".
	mochaStart = regexp.MustCompile(`^(\s+)\d+\) (.+)$`)
)

// FailingTests names the failing tests in a test command's output, in order
// of appearance and each once, for the runners people use: go test,
// pytest, unittest, jest, vitest, mocha and cargo test. A go test parent
// whose subtest is named is left out (the subtest says more).
func FailingTests(output string) []string {
	var out []string
	add := func(name string) {
		if name = strings.TrimSpace(name); name != "" && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	lines := strings.Split(ansi.ReplaceAllString(output, ""), "\n")
	mochaFailures := false
	for i, line := range lines {
		line = strings.TrimRight(line, "\r")
		switch {
		case goFail.MatchString(line):
			add(goFail.FindStringSubmatch(line)[1])
		case pytestFail.MatchString(line):
			add(pytestFail.FindStringSubmatch(line)[1])
		case unittestFail.MatchString(line):
			m := unittestFail.FindStringSubmatch(line)
			add(unittestName(m[1], m[2]))
		case vitestFail.MatchString(line):
			add(vitestFail.FindStringSubmatch(line)[1])
		case jestFail.MatchString(line) && !strings.Contains(line, "Test suite failed to run"):
			add(jestFail.FindStringSubmatch(line)[1])
		case cargoFail.MatchString(line):
			add(cargoFail.FindStringSubmatch(line)[1])
		case strings.HasSuffix(strings.TrimSpace(line), " failing") && mochaCount(line):
			mochaFailures = true
		case mochaFailures && mochaStart.MatchString(line):
			add(mochaTitle(lines[i:]))
		}
	}
	// A go test parent fails because a subtest did: keep the subtest.
	return slices.DeleteFunc(out, func(name string) bool {
		return slices.ContainsFunc(out, func(o string) bool { return strings.HasPrefix(o, name+"/") })
	})
}

// mochaCount reports whether line is mocha's "  2 failing".
func mochaCount(line string) bool {
	n, _, _ := strings.Cut(strings.TrimSpace(line), " ")
	return n != "" && strings.Trim(n, "0123456789") == ""
}

// mochaTitle joins a mocha failure's title: "1) suite", then the deeper
// lines up to the one ending with ":" ("suite nested throws").
func mochaTitle(lines []string) string {
	m := mochaStart.FindStringSubmatch(lines[0])
	parts := []string{m[2]}
	for _, l := range lines[1:] {
		t := strings.TrimSpace(l)
		if t == "" || len(l)-len(strings.TrimLeft(l, " ")) <= len(m[1]) {
			break
		}
		parts = append(parts, t)
		if strings.HasSuffix(t, ":") {
			break
		}
	}
	if last := parts[len(parts)-1]; strings.HasSuffix(last, ":") {
		parts[len(parts)-1] = strings.TrimSuffix(last, ":")
	} else if len(parts) == 1 && strings.HasSuffix(parts[0], ":") {
		parts[0] = strings.TrimSuffix(parts[0], ":")
	}
	return strings.Join(parts, " ")
}
