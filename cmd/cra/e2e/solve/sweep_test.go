package solve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/eval/evaltest"
	"github.com/cra-dev/cra/agent/orchestrator"
	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/kb"
)

// A killed eval's scratch worktree of a commit's own tests is gone after
// the next eval starts, even though that commit's clitest.Result is cached by then
// (so the step that made it never runs again); what a live process works
// in and the user's clitest.Result branches stay.
func TestEvalRemovesWhatAKilledEvalLeft(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.AllowUnused()
	repo := evaltest.CalcHistory(t)
	home := cli.EvalHome(t, srv, repo.Dir, fmt.Sprintf("holdout_repos = [%q]", repo.Dir))
	clitest.OracleFor(t, srv, home, nil)
	cli.MustRun(t, home, "eval", "--name", "nightly")
	commits := strings.Fields(cli.SQLRows(t, home, "select commit from raw.eval_commit_judgements order by all"))[1:]
	if len(commits) == 0 {
		t.Fatal("no commit's test clitest.Result is cached")
	}
	// What an eval killed in the middle of a commit's own tests leaves:
	// the worktree and its branch, no owner.
	dead := orchestrator.ScratchPrefix + "evalchild-" + commits[0][:16]
	deadDir := filepath.Join(orchestrator.WorktreesDir(home), dead)
	repo.Git("worktree", "add", "-q", "-b", orchestrator.BranchFor(dead), deadDir, commits[0])
	// What an older cra's killed eval left: a branch of the names it gave
	// its scratch worktrees then.
	repo.Git("branch", orchestrator.BranchFor("evalchild-"+commits[0][:16]), commits[0])
	repo.Git("branch", orchestrator.BranchFor("evaltests-"+commits[0][:16]), commits[0])
	// A live run's worktrees (this process owns them) and a finished
	// solve's clitest.Result branch.
	var live []string
	for _, id := range []string{orchestrator.ScratchPrefix + "evalchild-live", "solve-live"} {
		w, err := orchestrator.AddWorktree(context.Background(), home, repo.Dir, "HEAD", id)
		if err != nil {
			t.Fatal(err)
		}
		defer orchestrator.DiscardWorktree(context.Background(), home, repo.Dir, id)
		live = append(live, w.Dir)
	}
	repo.Git("branch", orchestrator.BranchFor("solve-20260101-clitest.Result"))

	res := clitest.Processes(t, []string{"--home", home, "eval", "--name", "nightly"})[0]
	if res.Code != clitest.ExitOK {
		t.Fatalf("the next eval: exit %d: %s", res.Code, res.Stderr)
	}
	branches := strings.Fields(repo.Git("branch", "--list", "--format=%(refname:short)", "cra/*"))
	want := []string{"cra/scratch-evalchild-live", "cra/solve-20260101-clitest.Result", "cra/solve-live"}
	if !slices.Equal(branches, want) {
		t.Errorf("branches after the next eval: %q, want %q", branches, want)
	}
	if _, err := os.Stat(deadDir); !os.IsNotExist(err) || strings.Contains(repo.Git("worktree", "list"), deadDir) {
		t.Errorf("the killed eval's worktree %s is left (%v)", deadDir, err)
	}
	for _, d := range live {
		if _, err := os.Stat(filepath.Join(d, "calc.py")); err != nil {
			t.Errorf("the live worktree %s was touched: %v", d, err)
		}
	}
}

// cra solve sweeps at its start too: a killed eval's scratch and the
// worktree of a solve killed after its session was archived go (the
// latter's branch, its clitest.Result, stays); a killed solve that --resume can
// take up keeps its worktree.
func TestSolveRemovesWhatKilledRunsLeft(t *testing.T) {
	s := &clitest.SolveScript{Meta: clitest.OnePart, Part: clitest.OneStep, Implement: []string{clitest.FixAdd}}
	srv := s.Server(t)
	r := clitest.CalcRepo(t)
	home := cli.SolveHome(t, srv, r, "")
	wt := func(id string) string { return filepath.Join(orchestrator.WorktreesDir(home), id) }
	for _, id := range []string{orchestrator.ScratchPrefix + "evalchild-0123456789abcdef", "solve-killed-in-finish", "solve-killed-resumable"} {
		r.Git("worktree", "add", "-q", "-b", orchestrator.BranchFor(id), wt(id), "HEAD")
	}
	if err := os.MkdirAll(kb.SessionsDir(home), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(kb.SessionsDir(home), "solve-killed-resumable.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := cli.Cra(t, home, "", "--json", "solve", "--repo", r.Dir, "Fix add: it must return the sum")
	if res.Code != clitest.ExitOK {
		t.Fatalf("exit %d: %s\n%s", res.Code, res.Stderr, res.Stdout)
	}
	var out struct {
		Branch string `json:"branch"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil {
		t.Fatal(err)
	}
	branches := strings.Fields(r.Git("branch", "--list", "--format=%(refname:short)", "cra/*"))
	want := []string{out.Branch, "cra/solve-killed-in-finish", "cra/solve-killed-resumable"}
	slices.Sort(want)
	if !slices.Equal(branches, want) {
		t.Errorf("branches after the solve: %q, want %q", branches, want)
	}
	for id, stays := range map[string]bool{orchestrator.ScratchPrefix + "evalchild-0123456789abcdef": false, "solve-killed-in-finish": false, "solve-killed-resumable": true} {
		if _, err := os.Stat(wt(id)); (err == nil) != stays {
			t.Errorf("worktree %s: %v; want it there: %v", id, err, stays)
		}
	}
}
