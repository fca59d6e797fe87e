package orchestrator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cra-dev/cra/kb/schema"
)

// Worktree is the git worktree a solve run works in, under the home: the
// user's checkout is never touched. Each successful step is a commit on
// its branch, cra/<task id>, which stays after the worktree is removed.
// The process that adds or reopens a worktree owns it until it removes or
// releases it (or dies): SweepStale never touches a worktree whose owner
// is alive.
type Worktree struct {
	Repo   string // the user's repository
	Dir    string // the worktree
	Branch string
	Base   string // the commit the run started from
	home   string
}

// WorktreesDir is where solve runs' worktrees live in home dir.
func WorktreesDir(home string) string { return filepath.Join(home, "worktrees") }

// BranchFor is the branch of a run.
func BranchFor(taskID string) string {
	return schema.AgentBranchPrefix + strings.ReplaceAll(taskID, ":", "-")
}

// repoLocks serialise the changes to a repository's list of worktrees
// made in this process, and the flock of the repository's git directory
// (lockGitDir) those of every cra process: git does not guard them against
// each other (a remove reading the entry an add is writing fails, and so
// does an add whose .git/worktrees another remove takes away), and cra
// eval runs several tasks of one repository at once, as overlapping cron
// jobs run several evals and solves.
var repoLocks sync.Map // repository path → *sync.Mutex

func lockRepo(ctx context.Context, repo string) (common string, unlock func()) {
	m, _ := repoLocks.LoadOrStore(repo, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	common, release := lockGitDir(ctx, repo)
	return common, func() {
		release()
		mu.Unlock()
	}
}

// gitDirWait bounds the wait for another process's change of the
// worktrees, which takes a git command or two: past it (a process
// stopped while it held the lock), the change goes ahead, as it did
// before there was a lock.
const gitDirWait = 30 * time.Second

// lockGitDir takes the flock of repo's git directory (the common one, as
// its worktrees share it), polling until it is free, ctx ends or
// gitDirWait passes, and returns that directory and the lock's release.
// A directory that is not a repository is not locked (common is ""):
// git's own error comes next.
func lockGitDir(ctx context.Context, repo string) (common string, release func()) {
	common, err := git(ctx, repo, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", func() {}
	}
	f, err := os.Open(common)
	if err != nil {
		return common, func() {}
	}
	for deadline := time.Now().Add(gitDirWait); ; {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return common, func() { f.Close() } // closing drops the flock
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || ctx.Err() != nil || time.Now().After(deadline) {
			f.Close()
			return common, func() {}
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// AddWorktree creates the run's worktree of repo at rev, on a new branch.
func AddWorktree(ctx context.Context, home, repo, rev, taskID string) (*Worktree, error) {
	_, unlock := lockRepo(ctx, repo)
	defer unlock()
	base, err := git(ctx, repo, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("%s is no commit of %s", rev, repo)
	}
	w := &Worktree{Repo: repo, Dir: filepath.Join(WorktreesDir(home), taskID), Branch: BranchFor(taskID), Base: base, home: home}
	if err := os.MkdirAll(WorktreesDir(home), 0o755); err != nil {
		return nil, err
	}
	if err := own(ctx, home, taskID, ownerWait); err != nil {
		return nil, err
	}
	if _, err := git(ctx, repo, "worktree", "add", "--quiet", "-b", w.Branch, w.Dir, base); err != nil {
		disown(home, taskID)
		return nil, err
	}
	return w, nil
}

// DiscardWorktree removes what a run of taskID left in repo, its
// worktree and its branch, if anything: cra eval's runs are scored from
// the store, and a run that starts again under the same id (an eval
// resumed after a kill) starts clean.
// A worktree another live process owns is left alone.
func DiscardWorktree(ctx context.Context, home, repo, taskID string) {
	common, unlock := lockRepo(ctx, repo)
	defer unlock()
	if own(ctx, home, taskID, 0) != nil {
		return
	}
	defer disown(home, taskID)
	removeWorktree(ctx, repo, common, filepath.Join(WorktreesDir(home), taskID))
	_, _ = git(ctx, repo, "branch", "-D", BranchFor(taskID))
}

// removeWorktree removes the worktree at dir and git's entry for it in
// common, repo's git directory; the caller holds lockRepo(ctx, repo), which
// found common, and owns the worktree.
func removeWorktree(ctx context.Context, repo, common, dir string) {
	_, _ = git(ctx, repo, "worktree", "remove", "--force", dir)
	_ = os.RemoveAll(dir)
	// The entry of a worktree whose directory went first (a kill): its
	// own, not a `git worktree prune`, which would take the entries other
	// processes are creating too.
	if common != "" {
		_ = os.RemoveAll(filepath.Join(common, "worktrees", filepath.Base(dir)))
	}
}

// OpenWorktree finds the worktree of a run being resumed, discarding what
// an interrupted step left uncommitted.
func OpenWorktree(ctx context.Context, home, repo, base, taskID string) (*Worktree, error) {
	w := &Worktree{Repo: repo, Dir: filepath.Join(WorktreesDir(home), taskID), Branch: BranchFor(taskID), Base: base, home: home}
	if err := own(ctx, home, taskID, ownerWait); err != nil {
		return nil, err
	}
	if _, err := os.Stat(w.Dir); err != nil {
		disown(home, taskID)
		return nil, fmt.Errorf("the worktree of %s is gone (%v): the run cannot resume", taskID, err)
	}
	return w, w.Reset(ctx)
}

// Release lets go of the worktree without removing it: a run that stops
// leaves it for --resume, and SweepStale to judge once this process is gone.
func (w *Worktree) Release() {
	disown(w.home, filepath.Base(w.Dir))
}

// Reset discards uncommitted changes: the tree is the last step's commit.
func (w *Worktree) Reset(ctx context.Context) error {
	if _, err := git(ctx, w.Dir, "reset", "--quiet", "--hard", "HEAD"); err != nil {
		return err
	}
	_, err := git(ctx, w.Dir, "clean", "-fdq")
	return err
}

// Commit records the tree as a step's commit; false when nothing changed.
func (w *Worktree) Commit(ctx context.Context, message string) (bool, error) {
	if _, err := git(ctx, w.Dir, "add", "-A"); err != nil {
		return false, err
	}
	if _, err := git(ctx, w.Dir, "diff", "--cached", "--quiet"); err == nil {
		return false, nil
	}
	_, err := git(ctx, w.Dir, "-c", "user.name="+schema.AgentName, "-c", "user.email="+schema.AgentEmail, "-c", "commit.gpgsign=false",
		"commit", "--quiet", "--no-verify", "-m", message)
	return err == nil, err
}

// Tree is the id of the tree as it stands, uncommitted work included: two
// attempts that leave the same files have the same tree.
func (w *Worktree) Tree(ctx context.Context) (string, error) {
	if _, err := git(ctx, w.Dir, "add", "-A"); err != nil {
		return "", err
	}
	return git(ctx, w.Dir, "write-tree")
}

// Diff is the change from the base to the tree as it stands, uncommitted
// work included, as git diff prints it (binary files too).
func (w *Worktree) Diff(ctx context.Context) (string, error) {
	if _, err := git(ctx, w.Dir, "add", "-A", "--intent-to-add"); err != nil {
		return "", err
	}
	return gitRaw(ctx, w.Dir, "diff", "--binary", w.Base)
}

// Remove deletes the worktree; the branch stays.
func (w *Worktree) Remove(ctx context.Context) error {
	_, unlock := lockRepo(ctx, w.Repo)
	defer unlock()
	_, err := git(ctx, w.Repo, "worktree", "remove", "--force", w.Dir)
	if err == nil {
		w.Release()
	}
	return err
}

// ApplyError names the paths of the user's tree a diff does not apply to.
type ApplyError struct {
	Paths []string
	Out   string
}

func (e *ApplyError) Error() string {
	if len(e.Paths) == 0 { // git's words, when they name no path cra can read
		why, _, _ := strings.Cut(strings.TrimSpace(e.Out), "\n")
		return fmt.Sprintf("the change does not apply cleanly to your working tree (git: %s); it is on the branch, untouched", strings.TrimPrefix(why, "error: "))
	}
	return fmt.Sprintf("the change does not apply cleanly to your working tree (conflicts in %s); it is on the branch, untouched", strings.Join(e.Paths, ", "))
}

// applyFailed finds the paths in git apply --check's complaints:
// "error: patch failed: a.py:3", "error: a.py: already exists in working
// directory", "error: affected file 'd/a.py' is beyond a symbolic link".
var applyFailed = regexp.MustCompile(`(?m)^error: (?:patch failed: |affected file ')?([^:'\n]+)[:']`)

// ApplyTo applies diff to the user's working tree, or nothing of it: when
// it does not apply cleanly the error is an *ApplyError naming the paths.
func ApplyTo(ctx context.Context, repo, diff string) error {
	if strings.TrimSpace(diff) == "" {
		return nil
	}
	check := exec.CommandContext(ctx, "git", "-C", repo, "apply", "--check", "--binary", "-")
	check.Stdin = strings.NewReader(diff)
	if out, err := check.CombinedOutput(); err != nil {
		var paths []string
		for _, m := range applyFailed.FindAllStringSubmatch(string(out), -1) {
			if p := strings.TrimSpace(m[1]); !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
		}
		return &ApplyError{Paths: paths, Out: string(out)}
	}
	apply := exec.CommandContext(ctx, "git", "-C", repo, "apply", "--binary", "-")
	apply.Stdin = strings.NewReader(diff)
	if out, err := apply.CombinedOutput(); err != nil {
		return fmt.Errorf("git apply: %v: %s", err, out)
	}
	return nil
}

// git runs git in dir and returns its trimmed output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := gitRaw(ctx, dir, args...)
	return strings.TrimSpace(out), err
}

func gitRaw(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 1 && len(args) > 0 && args[0] == "diff" {
			return stdout.String(), err // diff --quiet: there are differences
		}
		return stdout.String(), fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}
