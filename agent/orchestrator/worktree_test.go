package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
)

// The run works in its own worktree: commits go to its branch, the diff
// is the whole change, the user's checkout is never touched, and --apply
// brings the change in only when it applies cleanly.
func TestWorktree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := gittest.New(t)
	r.Write("a.py", "a = 1\n")
	r.Write("b.py", "b = 1\n")
	r.Commit("first")
	home := storetest.Home(t) // worktrees live in an initialised home
	w, err := AddWorktree(ctx, home, r.Dir, "HEAD", "solve-1")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.Dir, "a.py"), []byte("a = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ok, err := w.Commit(ctx, "step s1"); !ok || err != nil {
		t.Fatalf("commit: %v %v", ok, err)
	}
	if ok, err := w.Commit(ctx, "nothing"); ok || err != nil {
		t.Fatalf("an empty commit: %v %v", ok, err)
	}
	if err := os.WriteFile(filepath.Join(w.Dir, "c.py"), []byte("c = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	diff, err := w.Diff(ctx)
	if err != nil || !strings.Contains(diff, "-a = 1\n+a = 2\n") || !strings.Contains(diff, "+++ b/c.py") {
		t.Fatalf("diff %q, %v", diff, err)
	}
	if st := r.Git("status", "--porcelain"); st != "" {
		t.Fatalf("the user's checkout changed: %q", st)
	}
	// Resume: what was not committed goes.
	if _, err := OpenWorktree(ctx, home, r.Dir, w.Base, "solve-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(w.Dir, "c.py")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the interrupted step's file survived the reset: %v", err)
	}

	// --apply: a conflicting user tree is refused, naming the path, and left alone.
	r.Write("a.py", "a = 100\n")
	err = ApplyTo(ctx, r.Dir, diff)
	var ae *ApplyError
	if !errors.As(err, &ae) || !slices.Equal(ae.Paths, []string{"a.py"}) {
		t.Fatalf("conflict: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(r.Dir, "a.py")); string(b) != "a = 100\n" {
		t.Errorf("a refused apply changed a.py: %q", b)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, "c.py")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a refused apply created c.py")
	}
	r.Write("a.py", "a = 1\n")
	if err := ApplyTo(ctx, r.Dir, diff); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(r.Dir, "c.py")); string(b) != "c = 1\n" {
		t.Errorf("applied: c.py %q", b)
	}

	if err := w.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Error("the worktree is still there")
	}
	if got := r.Git("log", "--format=%s", w.Branch); got != "step s1\nfirst" {
		t.Errorf("branch %s: %q", w.Branch, got)
	}
}

// Runs of one repository at once (cra eval's --jobs) add, remove and
// discard worktrees side by side: none of them breaks another's.
func TestWorktreesOfOneRepositoryAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := gittest.New(t)
	r.Write("a.py", "a = 1\n")
	r.Commit("first")
	home := storetest.Home(t) // worktrees live in an initialised home
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 6 {
				id := fmt.Sprintf("run-%d-%d", g, i)
				w, err := AddWorktree(ctx, home, r.Dir, "HEAD", id)
				if err != nil {
					errs <- err
					return
				}
				if i%2 == 0 {
					err = w.Remove(ctx)
				}
				DiscardWorktree(ctx, home, r.Dir, id)
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if out := r.Git("worktree", "list"); strings.Count(out, "\n") != 0 {
		t.Errorf("worktrees left:\n%s", out)
	}
	if b := r.Git("branch", "--list", "cra/*"); b != "" {
		t.Errorf("branches left: %s", b)
	}
}

// --apply's refusal names what git refused: a path behind a symbolic link
// in the user's tree, a file already there, and git's own words when it
// names no path.
func TestApplyErrorNamesWhatGitRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ out, want string }{
		{"error: affected file 'linked/a.py' is beyond a symbolic link\n", "(conflicts in linked/a.py)"},
		{"error: c.py: already exists in working directory\n", "(conflicts in c.py)"},
		{"error: patch failed: a.py:1\nerror: a.py: patch does not apply\n", "(conflicts in a.py)"},
		{"error: corrupt patch at line 7\n", "(git: corrupt patch at line 7)"},
	} {
		var paths []string
		for _, m := range applyFailed.FindAllStringSubmatch(tc.out, -1) {
			if !slices.Contains(paths, m[1]) {
				paths = append(paths, m[1])
			}
		}
		if got := (&ApplyError{Paths: paths, Out: tc.out}).Error(); !strings.Contains(got, tc.want) {
			t.Errorf("%q: %q, want %q in it", tc.out, got, tc.want)
		}
	}
}

// A run whose worktree lost its .git file before git's entry went (a kill
// while it was removed: git worktree remove then refuses the directory)
// is discarded whole: the entry goes too, so a run starting again under
// that id (a resumed eval) gets its worktree.
func TestDiscardRemovesTheEntryOfAHalfRemovedWorktree(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write("a.py", "x = 1\n")
	r.Commit("first")
	home := storetest.Home(t)
	ctx := context.Background()
	w, err := AddWorktree(ctx, home, r.Dir, "HEAD", "evalchild-1")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(w.Dir, ".git")); err != nil {
		t.Fatal(err)
	}
	DiscardWorktree(ctx, home, r.Dir, "evalchild-1")
	if got := r.Git("worktree", "list", "--porcelain"); strings.Count(got, "worktree ") != 1 {
		t.Errorf("git still lists the worktree:\n%s", got)
	}
	if _, err := AddWorktree(ctx, home, r.Dir, "HEAD", "evalchild-1"); err != nil {
		t.Errorf("the run cannot start again: %v", err)
	}
}
