package orchestrator

import (
	"bufio"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// What a run leaves in the user's repository, and who may remove it:
//   - a run's worktree (home's worktrees/<task id>) and its branch
//     cra/<task id>. A finished cra solve removes the worktree and keeps
//     the branch: the branch is the user's result. A killed or broken run
//     keeps both with its session, for --resume. cra eval's runs are
//     discarded by the eval once it has recorded them.
//   - a scratch worktree (task id ScratchPrefix…): made and removed by one
//     step (cra eval's runs of a commit's own tests), its branch no one's
//     result.
//
// The process that adds or reopens a worktree owns it (an flock in the
// home's locks/, dropped by the kernel when the process dies, even by
// kill -9). SweepStale, at the start of cra solve and cra eval, removes
// what dead owners left: their worktrees that no session can resume, and
// the branches of scratch worktrees, and kills the test processes a dead
// owner left running (unconfined runs only: bubblewrap takes them with
// it; see Box). It never touches a live owner's worktree, a resumable run
// or a result branch.

// ScratchPrefix starts the task id of a scratch worktree.
const ScratchPrefix = "scratch-"

// scratchPrefixes start the task ids of scratch worktrees: ScratchPrefix,
// and the names cra eval gave its runs of a commit's own tests before
// scratch worktrees had it, which older binaries left in users'
// repositories.
var scratchPrefixes = []string{ScratchPrefix, "evalchild-", "evaltests-"}

func isScratch(taskID string) bool {
	return slices.ContainsFunc(scratchPrefixes, func(p string) bool { return strings.HasPrefix(taskID, p) })
}

// ownerLock is the kb.LockInput batch name of a worktree's owner.
const ownerLock = "worktree"

// ownerWait is how long a new owner waits for another process that holds
// the worktree's lock: SweepStale holds it for a moment while it decides.
const ownerWait = 5 * time.Second

// owners are the worktrees this process owns: task directory → lock.
var owners sync.Map

func ownerKey(home, taskID string) string { return filepath.Join(WorktreesDir(home), taskID) }

// own takes the worktree of taskID for this process (at once if it is
// already this process's), waiting up to wait for another owner.
func own(ctx context.Context, home, taskID string, wait time.Duration) error {
	key := ownerKey(home, taskID)
	if _, ok := owners.Load(key); ok {
		return nil
	}
	l, err := kb.LockInput(ctx, home, ownerLock, taskID, "cra (worktree "+taskID+")", wait)
	if err != nil {
		return err
	}
	if _, loaded := owners.LoadOrStore(key, l); loaded {
		l.Release() //nolint:errcheck // another goroutine of this process took it first
	}
	return nil
}

// disown lets go of the worktree of taskID if this process owns it.
func disown(home, taskID string) {
	if l, ok := owners.LoadAndDelete(ownerKey(home, taskID)); ok {
		l.(*kb.InputLock).Release() //nolint:errcheck // dropped at exit anyway
	}
}

// SweepStale removes from repo what runs of home whose process is gone
// left behind (see above) and returns the worktrees and branches it
// removed. Failures to remove are not errors: what is left is tried again
// at the next start.
func SweepStale(ctx context.Context, home, repo string) []string {
	common, unlock := lockRepo(ctx, repo)
	defer unlock()
	wts, err := worktrees(ctx, repo)
	if err != nil {
		return nil
	}
	var removed []string
	inUse := map[string]bool{} // branches checked out in a worktree that stays
	resumable := sessionIDs(home)
	for _, wt := range wts {
		taskID := filepath.Base(wt.dir)
		if !inHome(home, wt.dir) || !claimStale(ctx, home, taskID) {
			inUse[wt.branch] = true // the user's checkout, another home's run, or a live owner's
			continue
		}
		KillLeftovers(wt.dir) // its owner is dead: so is every test it ran
		if slices.Contains(resumable, taskID) && !isScratch(taskID) {
			inUse[wt.branch] = true // cra solve --resume (or the eval that ran it) takes it up
		} else {
			removeWorktree(ctx, repo, common, wt.dir)
			removed = append(removed, wt.dir)
		}
		disown(home, taskID)
	}
	var patterns []string
	for _, p := range scratchPrefixes {
		patterns = append(patterns, "refs/heads/"+BranchFor(p)+"*")
	}
	branches, _ := git(ctx, repo, append([]string{"for-each-ref", "--format=%(refname:short)"}, patterns...)...)
	for _, b := range strings.Fields(branches) {
		taskID := strings.TrimPrefix(b, schema.AgentBranchPrefix)
		if inUse[b] || !claimStale(ctx, home, taskID) {
			continue
		}
		if _, err := git(ctx, repo, "branch", "-D", b); err == nil {
			removed = append(removed, b)
		}
		disown(home, taskID)
	}
	return removed
}

// claimStale takes the worktree of taskID for this process if its owner
// is gone; false when a live process owns it, this one included.
func claimStale(ctx context.Context, home, taskID string) bool {
	if _, ok := owners.Load(ownerKey(home, taskID)); ok {
		return false
	}
	return own(ctx, home, taskID, 0) == nil
}

// inHome reports whether the worktree at dir is one of home's runs'.
func inHome(home, dir string) bool {
	parent := WorktreesDir(home)
	if filepath.Dir(dir) == parent {
		return true
	}
	real, err := filepath.EvalSymlinks(parent) // git may print the path resolved
	return err == nil && filepath.Dir(dir) == real
}

type worktreeEntry struct{ dir, branch string }

// worktrees lists repo's worktrees as git records them (those whose
// directory is gone too), each with its branch ("" when detached).
func worktrees(ctx context.Context, repo string) ([]worktreeEntry, error) {
	out, err := git(ctx, repo, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	var list []worktreeEntry
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if dir, ok := strings.CutPrefix(line, "worktree "); ok {
			list = append(list, worktreeEntry{dir: filepath.Clean(dir)})
		} else if ref, ok := strings.CutPrefix(line, "branch refs/heads/"); ok && len(list) > 0 {
			list[len(list)-1].branch = ref
		}
	}
	if len(list) == 0 {
		return nil, errors.New("git worktree list: no worktree")
	}
	return list, sc.Err()
}
