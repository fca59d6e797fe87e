package orchestrator

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
)

// churnWorktrees adds and discards worktrees of one repository in turn,
// as a cra eval's tasks do: spec is home, repo, a task id prefix and how
// many. It prints each failure and exits 1 if any.
func churnWorktrees(spec []string) int {
	home, repo, prefix := spec[0], spec[1], spec[2]
	n, _ := strconv.Atoi(spec[3])
	ctx := context.Background()
	code := 0
	for i := range n {
		id := fmt.Sprintf("%s-%d", prefix, i)
		if _, err := AddWorktree(ctx, home, repo, "HEAD", id); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
			continue
		}
		DiscardWorktree(ctx, home, repo, id)
	}
	return code
}

// Processes adding and removing worktrees of one repository at once (two
// evals, or a solve beside an eval, from overlapping cron jobs; here four,
// each of a home of its own) never fail: git does not guard its list of
// worktrees against another process changing it. Without the lock, each
// of six runs failed: "failed to read .git/worktrees/.../commondir", or
// "could not create directory of '.git/worktrees/...'".
func TestProcessesAddWorktreesOfOneRepositoryAtOnce(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write("a.py", "x = 1\n")
	r.Commit("first")
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for i := range 4 {
		home := storetest.Home(t)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "CRA_TEST_WORKTREE_CHURN="+strings.Join([]string{home, r.Dir, "churn" + strconv.Itoa(i), "40"}, ","))
		out := &strings.Builder{}
		cmd.Stderr = out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("process %d: %v\n%s", i, err, outs[i])
		}
	}
	if got := r.Git("worktree", "list", "--porcelain"); strings.Count(got, "worktree ") != 1 {
		t.Errorf("worktrees left:\n%s", got)
	}
}
