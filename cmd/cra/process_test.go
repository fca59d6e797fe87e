package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/eval/evaltest"
	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/e2e"
)

// TestMain lets a test run the real CLI in a child process: this test
// binary started with clitest.ChildEnv is cra; started
// by e2e.Measure, it is the wrapper measuring a child's peak RSS.
func TestMain(m *testing.M) {
	e2e.MeasureMain() // the recipe test's measuring wrapper (recipe_test.go)
	if args, ok := clitest.ChildArgs(); ok {
		os.Exit(Run(context.Background(), args, os.Stdin, os.Stdout, os.Stderr))
	}
	evaltest.UsePython()
	clitest.MoreParallel()
	code := m.Run()
	clitest.CleanupFixtures()
	clitest.RemoveBinary()
	os.Exit(code)
}

// craProcesses runs each argument list as its own cra process, all at
// once, and returns their results in order.
func craProcesses(t *testing.T, runs ...[]string) []result {
	t.Helper()
	var out []result
	for _, r := range clitest.Processes(t, runs...) {
		out = append(out, result{r.Code, r.Stdout, r.Stderr})
	}
	return out
}

// Two curate-data processes on one dataset name: with --wait each builds
// its own whole version, one after the other; without it the second exits 1
// naming the first. A datasets prune meanwhile waits its turn too.
func TestTwoCurateDataProcessesOnOneName(t *testing.T) {
	t.Parallel()
	home := newHome(t)
	r := clitest.HistoryRepo(t)
	mustRun(t, home, "bootstrap", r.Dir)
	clitest.TrainAll(t, home)
	single := newHome(t)
	mustRun(t, single, "bootstrap", r.Dir)
	clitest.TrainAll(t, single)
	mustRun(t, single, "curate-data", "--name", "rel")
	want := mustRun(t, single, "sql", "--format", "csv", "select id, stage, split from raw.training_examples order by all")

	res := craProcesses(t,
		[]string{"--home", home, "curate-data", "--name", "rel", "--wait", "1m"},
		[]string{"--home", home, "curate-data", "--name", "rel", "--wait", "1m"})
	for i, r := range res {
		if r.code != exitOK {
			t.Fatalf("process %d: exit %d, %s", i, r.code, r.stderr)
		}
	}
	for _, v := range []string{"1", "2"} {
		got := mustRun(t, home, "sql", "--format", "csv", "select id, stage, split from raw.training_examples where version = "+v+" order by all")
		if got != want {
			t.Errorf("version %s differs from a single run's rows:\n%s\nwant\n%s", v, got, want)
		}
	}

	res = craProcesses(t,
		[]string{"--home", home, "curate-data", "--name", "rel"},
		[]string{"--home", home, "curate-data", "--name", "rel"})
	codes := map[int]int{}
	for _, r := range res {
		codes[r.code]++
		if r.code == exitFailures && !strings.Contains(r.stderr, "is working on rel") {
			t.Errorf("the skipped run does not name the holder: %q", r.stderr)
		}
	}
	// Either one ran while the other was refused, or they did not overlap.
	if codes[exitOK]+codes[exitFailures] != 2 || codes[exitOK] == 0 {
		t.Errorf("exit codes %v: want one build, the other done or refused", codes)
	}
	versions := mustRun(t, home, "sql", "--format", "csv", "select count(*) = count(distinct version) as once from raw.dataset_versions where name = 'rel'")
	if versions != "once\ntrue\n" {
		t.Errorf("a version registered twice: %q", versions)
	}
}
