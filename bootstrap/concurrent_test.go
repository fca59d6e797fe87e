package bootstrap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/kb"
)

// runChildren starts n bootstrap processes on one home and repository at
// once (this test binary; TestMain does the run) and returns their summaries.
func runChildren(t *testing.T, n int, home, repo, wait string, env ...string) []*Summary {
	t.Helper()
	out := make([]*Summary, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "CRA_TEST_BOOTSTRAP_HOME="+home, "CRA_TEST_BOOTSTRAP_REPO="+repo, "CRA_TEST_BOOTSTRAP_WAIT="+wait)
			cmd.Env = append(cmd.Env, env...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Errorf("child %d: %v: %s", i, err, stderr.String())
				return
			}
			var s Summary
			if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
				t.Errorf("child %d: %v: %q", i, err, stdout.String())
				return
			}
			out[i] = &s
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return out
}

// Two bootstrap processes started together on one home and repository,
// with merged branches, end with the rows of a single run, id for id: the
// second one either skips the repository as busy, naming the holder, or
// waits for it and then finds nothing new.
func TestTwoProcessesOnOneHomeWriteEachRowOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("mines a repository in three processes")
	}
	// Merged branches: both processes reach the merge phase, which reads
	// the branches from the recorded commits and writes their tasks.
	repo := mergedHistory(t, 150)
	single := newHome(t)
	mine(t, single, testOptions(), repo)
	want := dump(t, single)
	if n := mergeTaskCount(t, single); n == 0 {
		t.Fatal("no merge task: the fixture needs merged branches that are tasks")
	}

	for _, tc := range []struct{ name, wait string }{{"skip", "0s"}, {"wait", "2m"}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home := newHome(t)
			sums := runChildren(t, 2, home, repo, tc.wait)
			sameRows(t, dump(t, home), want)
			statuses := map[string]int{}
			for _, s := range sums {
				statuses[s.Repos[0].Status]++
				if s.Repos[0].Status == kb.StatusBusy && (s.Busy != 1 || s.Repos[0].Error == "") {
					t.Errorf("a busy repository is not reported: %+v", s.Repos[0])
				}
			}
			if statuses[kb.StatusOK] != 1 {
				t.Errorf("statuses %v: want exactly one run to mine the repository", statuses)
			}
			other := kb.StatusBusy
			if tc.wait != "0s" {
				other = kb.StatusUpToDate
			}
			if statuses[other] != 1 {
				t.Errorf("statuses %v: want the other run %s", statuses, other)
			}
			if runs := rawRows(t, home, "SELECT count(*) FROM bootstrap_runs WHERE status = 'running'"); runs[0] != "0" {
				t.Errorf("%s runs left running", runs[0])
			}
		})
	}
}

// A run killed with SIGKILL stays "running" until the next run finds its
// lock free and marks it interrupted; a live run is never marked.
func TestStaleRunningRunIsMarkedInterrupted(t *testing.T) {
	t.Parallel()
	r, _ := project(t)
	var home string
	repo := filepath.Join(t.TempDir(), "repo")
	gittest.Synthetic{Files: 40, Commits: 300, Funcs: 4, Realistic: true}.Build(t, repo)
	home = newHome(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CRA_TEST_BOOTSTRAP_HOME="+home, "CRA_TEST_BOOTSTRAP_REPO="+repo)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The run lock exists once the run row is committed: kill right then.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if m, _ := filepath.Glob(filepath.Join(home, "locks", "bootstrap-run-*.lock")); len(m) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the child never started its run")
		}
	}
	cmd.Process.Kill() //nolint:errcheck // checked below
	if err := cmd.Wait(); err == nil {
		t.Fatal("the child finished before the kill: the test proved nothing")
	}
	if got := rawRows(t, home, "SELECT status FROM bootstrap_runs"); got[0] != kb.StatusRunning {
		t.Fatalf("after the kill: runs %v, want one running", got)
	}
	mine(t, home, testOptions(), r.Dir)
	got := rawRows(t, home, "SELECT status FROM bootstrap_runs ORDER BY id")
	if len(got) != 2 || got[0] != kb.StatusInterrupted || got[1] != kb.StatusOK {
		t.Errorf("runs %v; want [interrupted ok]", got)
	}
}

// cancelAfter is a progress that cancels the run after n commits are built
// (indexing, which reports progress too, does not count).
type cancelAfter struct {
	n      atomic.Int64
	mining atomic.Bool
	cancel context.CancelFunc
}

func (c *cancelAfter) Add(d int64) {
	if c.mining.Load() && c.n.Add(-d) <= 0 {
		c.cancel()
	}
}
func (c *cancelAfter) Phase(name string, _ int64) { c.mining.Store(name == "bootstrap") }
func (c *cancelAfter) AddTotal(int64)             {}
func (c *cancelAfter) Items(int)                  {}
func (c *cancelAfter) Item(string)                {}
func (c *cancelAfter) ItemDone()                  {}

// An interrupted run's summary reports what it saved, not zeros.
func TestInterruptedRunReportsWhatItSaved(t *testing.T) {
	t.Parallel()
	repo := filepath.Join(t.TempDir(), "repo")
	gittest.Synthetic{Files: 30, Commits: 600, Funcs: 4, Realistic: true}.Build(t, repo)
	home := newHome(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := &cancelAfter{cancel: cancel}
	p.n.Store(300) // past the first batch of batchCommits
	opts := testOptions()
	opts.Progress = p
	sum, err := Run(ctx, home, []string{repo}, opts)
	if !errors.Is(err, context.Canceled) || sum == nil || !sum.Interrupted {
		t.Fatalf("err %v, summary %+v: want an interrupted run", err, sum)
	}
	res := sum.Repos[0]
	commits := rawRows(t, home, "SELECT count(*) FROM bootstrap_commits")[0]
	tasks := rawRows(t, home, "SELECT count(*) FROM synthetic_tasks")[0]
	if commits == "0" || fmt.Sprint(res.Seen) != commits || fmt.Sprint(res.Verified) != tasks || fmt.Sprint(sum.Verified) != tasks {
		t.Errorf("summary: seen %d, verified %d (total %d); stored %s commits, %s tasks", res.Seen, res.Verified, sum.Verified, commits, tasks)
	}
	if got := rawRows(t, home, "SELECT status FROM bootstrap_runs"); got[0] != kb.StatusInterrupted {
		t.Errorf("run status %v, want interrupted", got)
	}
}
