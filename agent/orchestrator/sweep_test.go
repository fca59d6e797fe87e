package orchestrator

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// TestMain lets a test start a process that owns a worktree, as a run of
// cra solve or cra eval does: CRA_TEST_WORKTREE=home,repo,task id adds it,
// prints "ready" and waits for stdin to close (or a kill). With
// CRA_TEST_WORKTREE_CHURN it is churnWorktrees.
func TestMain(m *testing.M) {
	if spec := os.Getenv("CRA_TEST_WORKTREE"); spec != "" {
		f := strings.Split(spec, ",")
		if _, err := AddWorktree(context.Background(), f[0], f[1], "HEAD", f[2]); err != nil {
			println("error:", err.Error())
			os.Exit(1)
		}
		println("ready")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		os.Exit(0)
	}
	if spec := os.Getenv("CRA_TEST_WORKTREE_CHURN"); spec != "" {
		os.Exit(churnWorktrees(strings.Split(spec, ",")))
	}
	os.Exit(m.Run())
}

// worktreeOwner starts a process that adds the worktree taskID of repo
// and owns it until kill is called (SIGKILL, as a killed run dies).
func worktreeOwner(t *testing.T, home, repo, taskID string) (kill func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CRA_TEST_WORKTREE="+strings.Join([]string{home, repo, taskID}, ","))
	stdin, _ := cmd.StdinPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(stderr).ReadString('\n'); strings.TrimSpace(line) != "ready" {
		t.Fatalf("the owner of %s did not start: %q", taskID, line)
	}
	t.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	return func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
}

// What killed runs left is removed at the next start, and only that: a
// killed scratch worktree goes with its branch, a scratch branch whose
// worktree already went goes too, a killed run's worktree that no session
// can resume goes while its branch stays; a live process's worktrees, a
// killed run a session can resume, a finished run's result branch, the
// user's own branches and worktrees stay.
func TestSweepStaleRemovesOnlyWhatDeadRunsLeft(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := gittest.New(t)
	r.Write("a.py", "a = 1\n")
	r.Commit("first")
	home := storetest.Home(t) // worktrees live in an initialised home
	dir := func(id string) string { return filepath.Join(WorktreesDir(home), id) }

	for _, id := range []string{"scratch-evalchild-dead", "solve-killed-resumable", "solve-killed-in-finish", "scratch-evaltests-gone"} {
		worktreeOwner(t, home, r.Dir, id)()
	}
	if err := os.MkdirAll(kb.SessionsDir(home), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(kb.SessionsDir(home), "solve-killed-resumable.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	DiscardWorktree(ctx, home, r.Dir, "scratch-evaltests-gone")
	r.Git("branch", BranchFor("scratch-evaltests-gone")) // killed between the worktree's removal and its branch's
	for _, id := range []string{"scratch-evalchild-live", "solve-live"} {
		worktreeOwner(t, home, r.Dir, id)
	}
	r.Git("branch", BranchFor("solve-finished")) // a finished run's result: the branch alone
	r.Git("branch", "feature")
	userWorktree := filepath.Join(t.TempDir(), "mine")
	r.Git("worktree", "add", "-q", "-b", "cra/scratch-users-own", userWorktree)

	removed := SweepStale(ctx, home, r.Dir)
	slices.Sort(removed)
	want := []string{dir("scratch-evalchild-dead"), dir("solve-killed-in-finish"), "cra/scratch-evalchild-dead", "cra/scratch-evaltests-gone"}
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("removed %q\nwant    %q", removed, want)
	}
	branches := strings.Fields(r.Git("branch", "--format=%(refname:short)"))
	for _, b := range []string{"cra/scratch-evalchild-live", "cra/solve-live", "cra/solve-killed-resumable", "cra/solve-killed-in-finish",
		"cra/solve-finished", "feature", "cra/scratch-users-own"} {
		if !slices.Contains(branches, b) {
			t.Errorf("branch %s was removed", b)
		}
	}
	for _, b := range []string{"cra/scratch-evalchild-dead", "cra/scratch-evaltests-gone"} {
		if slices.Contains(branches, b) {
			t.Errorf("branch %s is left", b)
		}
	}
	for _, d := range []string{dir("scratch-evalchild-live"), dir("solve-live"), dir("solve-killed-resumable"), userWorktree} {
		if _, err := os.Stat(filepath.Join(d, "a.py")); err != nil {
			t.Errorf("worktree %s was touched: %v", d, err)
		}
	}
	list := r.Git("worktree", "list", "--porcelain")
	for _, id := range []string{"scratch-evalchild-dead", "solve-killed-in-finish"} {
		if _, err := os.Stat(dir(id)); !os.IsNotExist(err) || strings.Contains(list, dir(id)) {
			t.Errorf("worktree %s is left (%v):\n%s", id, err, list)
		}
	}
	if again := SweepStale(ctx, home, r.Dir); len(again) != 0 {
		t.Errorf("a second sweep removed %q", again)
	}
	// The scratch can be made again, and this process's own worktree is
	// as safe from its sweep as another process's.
	w, err := AddWorktree(ctx, home, r.Dir, "HEAD", "scratch-evalchild-dead")
	if err != nil {
		t.Fatal(err)
	}
	if removed := SweepStale(ctx, home, r.Dir); len(removed) != 0 {
		t.Errorf("the sweep removed this process's own worktree: %q", removed)
	}
	DiscardWorktree(ctx, home, r.Dir, filepath.Base(w.Dir))
}
