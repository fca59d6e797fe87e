package bootstrap

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// TestMain lets a test run bootstrap in a child process it can kill -9 or
// interrupt.
func TestMain(m *testing.M) {
	if home := os.Getenv("CRA_TEST_BOOTSTRAP_HOME"); home != "" {
		os.Exit(bootstrapChild(home, os.Getenv("CRA_TEST_BOOTSTRAP_REPO")))
	}
	os.Exit(m.Run())
}

// Environment of the child: the write transaction (hook point and its
// occurrence, "batch:2") at which it stops until a signal comes, or whose
// write fails.
const (
	envStopAt = "CRA_TEST_BOOTSTRAP_STOP"
	envFailAt = "CRA_TEST_BOOTSTRAP_FAIL"
	envSince  = "CRA_TEST_BOOTSTRAP_SINCE" // --since, RFC 3339
	envTrace  = "CRA_TEST_BOOTSTRAP_TRACE" // say each hook point reached on stderr
	stoppedAt = "stopped at "
	reachedAt = "reached "
)

// bootstrapChild is `cra bootstrap` in a process of its own: SIGINT or
// SIGTERM cancels the run, which then exits 130 as cra does; a repository
// that failed exits 1. At the write named by envStopAt it says so on
// stderr and waits, inside the transaction, for a signal; the write named
// by envFailAt fails.
func bootstrapChild(home, repo string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := testOptions()
	opts.Wait, _ = time.ParseDuration(os.Getenv("CRA_TEST_BOOTSTRAP_WAIT"))
	opts.Since, _ = time.Parse(time.RFC3339, os.Getenv(envSince))
	var mu sync.Mutex // raw's hooks run inside its lock, curated's inside its own
	reached := map[string]int{}
	testHook = func(point string) error {
		mu.Lock()
		reached[point]++
		at := fmt.Sprintf("%s:%d", point, reached[point])
		mu.Unlock()
		if os.Getenv(envTrace) != "" {
			fmt.Fprintln(os.Stderr, reachedAt+at)
		}
		switch at {
		case os.Getenv(envStopAt):
			fmt.Fprintln(os.Stderr, stoppedAt+at)
			select {
			case <-ctx.Done():
			case <-time.After(time.Minute):
			}
		case os.Getenv(envFailAt):
			return fmt.Errorf("injected write error at %s", at)
		}
		return nil
	}
	sum, err := Run(ctx, home, []string{repo}, opts)
	if ctx.Err() != nil {
		fmt.Fprintln(os.Stderr, "interrupted: run the same command again to finish")
		return 130
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	json.NewEncoder(os.Stdout).Encode(sum) //nolint:errcheck // read by the parent test
	// This process's own high-water mark (its rusage after exec may
	// carry the parent's).
	fmt.Fprintf(os.Stderr, "vmhwm=%d\n", storetest.PeakRSS())
	if sum.Failed > 0 {
		return 1
	}
	return 0
}

// stopChild runs bootstrap in a child process with env added, sends it sig
// once it stops at envStopAt (if env sets one) and returns its exit code,
// -1 when a signal ended it. Without env it is an uninterrupted run.
func stopChild(t *testing.T, home, repo string, sig os.Signal, env ...string) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env, "CRA_TEST_BOOTSTRAP_HOME="+home, "CRA_TEST_BOOTSTRAP_REPO="+repo)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var said []string
	stopped := false
	for sc := bufio.NewScanner(stderr); sc.Scan(); {
		said = append(said, sc.Text())
		if !stopped && strings.HasPrefix(sc.Text(), stoppedAt) {
			stopped = true
			cmd.Process.Signal(sig) //nolint:errcheck // the exit status tells
		}
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	for _, e := range env {
		if strings.HasPrefix(e, envStopAt+"=") && !stopped {
			t.Fatalf("the child never reached %s: %s", e, strings.Join(said, "\n"))
		}
	}
	t.Logf("child: %v; %d stderr lines, the last %q", cmd.ProcessState, len(said), said[max(0, len(said)-1):])
	return cmd.ProcessState.ExitCode()
}

// mergedHistory builds a repository whose merged branches of 2 to 4
// commits are multi-part tasks.
func mergedHistory(t *testing.T, commits int) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "repo")
	// 20 files of 3 functions: what a resumed run must reproduce is in the
	// commits, their batches and the merged branches, not in file sizes
	// (40 files of 6 functions cost half as much again per mining run).
	gittest.Synthetic{Files: 20, Commits: commits, Funcs: 3, Realistic: true, MergedBranches: true}.Build(t, repo)
	return repo
}

// homeIndexedAs is a new home whose knowledge base is a copy of from's: a
// run there mines at once, without indexing the repository first.
func homeIndexedAs(t *testing.T, from string) string {
	t.Helper()
	return homeWithStoresOf(t, from, kb.Curated)
}

func mergeTaskCount(t testing.TB, home string) int {
	t.Helper()
	return len(rawRows(t, home, `SELECT id FROM synthetic_tasks WHERE commit IN (SELECT commit FROM bootstrap_commits WHERE len(parents) = 2)`))
}

// A run stopped at any moment — kill -9 (inside a batch's write
// transaction, inside the merge phase's, halfway), Ctrl-C, a failed write —
// and run again ends with exactly the rows of an uninterrupted run: the same
// commits, task ids and target contents, merged branches' multi-part
// tasks included; and the run after that finds nothing to do.
func TestInterruptedBootstrapResumesToTheSameRows(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("mines a 300-commit repository a dozen times")
	}
	repo := mergedHistory(t, 300)
	indexed := indexedHome(t, repo)
	want := homeIndexedAs(t, indexed)
	start := time.Now()
	if code := stopChild(t, want, repo, nil); code != 0 {
		t.Fatalf("uninterrupted run: exit %d", code)
	}
	took := time.Since(start)
	wantRows := dump(t, want)
	if n := mergeTaskCount(t, want); n < 3 {
		t.Fatalf("%d merge tasks: the fixture needs merged branches that are tasks", n)
	}
	t.Logf("uninterrupted: %d commits, %d tasks (%d of merged branches), %d targets in %v",
		len(wantRows["bootstrap_commits"]), len(wantRows["synthetic_tasks"]), mergeTaskCount(t, want), len(wantRows["synthetic_targets"]), took)

	// Timed from the uninterrupted run just before, under the same load
	// (so not in parallel with the subtests below): a child twice as fast
	// would finish before the kill.
	t.Run("kill -9 halfway", func(t *testing.T) {
		home := homeIndexedAs(t, indexed)
		if !storetest.KillAfter(t, []string{"CRA_TEST_BOOTSTRAP_HOME=" + home, "CRA_TEST_BOOTSTRAP_REPO=" + repo}, took/2) {
			t.Error("the child was not killed mid-run: the timed kill proved nothing")
		}
		t.Logf("killed after %v: %d commits were stored", took/2, len(rawRows(t, home, "SELECT commit FROM bootstrap_commits")))
		mine(t, home, testOptions(), repo)
		sameRows(t, dump(t, home), wantRows)
	})

	type stop struct {
		name string
		sig  os.Signal
		env  string
		code int // -1: killed by the signal
	}
	stops := []stop{
		{"kill -9 in the second batch's write", syscall.SIGKILL, envStopAt + "=batch:2", -1},
		{"kill -9 in the merge phase's write", syscall.SIGKILL, envStopAt + "=merge:1", -1},
		{"SIGINT in the merge phase's write", syscall.SIGINT, envStopAt + "=merge:1", 130},
		{"write error in the second batch", nil, envFailAt + "=batch:2", 1},
		{"write error in the merge phase", nil, envFailAt + "=merge:1", 1},
	}
	for _, tc := range stops {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home := homeIndexedAs(t, indexed)
			if code := stopChild(t, home, repo, tc.sig, tc.env); code != tc.code {
				t.Fatalf("exit %d, want %d", code, tc.code)
			}
			t.Logf("stopped with %d commits and %d tasks stored", len(rawRows(t, home, "SELECT commit FROM bootstrap_commits")),
				len(rawRows(t, home, "SELECT id FROM synthetic_tasks")))
			mine(t, home, testOptions(), repo)
			sameRows(t, dump(t, home), wantRows)
			if res := mine(t, home, testOptions(), repo).Repos[0]; res.Status != kb.StatusUpToDate {
				t.Errorf("the run after: %s, want up_to_date", res.Status)
			}
		})
	}
}
