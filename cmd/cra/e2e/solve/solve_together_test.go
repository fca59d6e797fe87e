package solve_test

import (
	"encoding/json"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cra-dev/cra/agent/orchestrator"
	"github.com/cra-dev/cra/internal/clitest"
)

// Two cra solve processes in one home at once (overlapping jobs), each
// test run leaving a setsid child behind, with cra sql reading the home in
// processes of its own meanwhile: both runs pass, neither kills the
// other's tests (each sweeps its own worktree's leftovers only), both
// write their rows, nothing of either test run survives, and every read
// succeeds. In the sandbox both share the home's sandbox-cache.
func TestTwoSolvesInOneHomeAtOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs two cra solve processes")
	}
	for _, sandbox := range []string{"auto", "none"} {
		t.Run(sandbox, func(t *testing.T) {
			if sandbox == "auto" {
				needBubblewrap(t)
			}
			s := &clitest.SolveScript{Meta: clitest.OnePart, Part: clitest.OneStep, Implement: []string{clitest.FixAdd}}
			srv := s.Server(t)
			r := clitest.CalcRepo(t)
			home := cli.SolveHome(t, srv, r, "sandbox = \""+sandbox+"\"\n")
			clitest.SetConfig(t, home, clitest.TestCalc, "setsid sleep 600 & sleep 1; "+clitest.TestCalc)
			var reads, failedReads atomic.Int32
			done := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { // cra sql in its own process, again and again
				defer wg.Done()
				for {
					select {
					case <-done:
						return
					default:
					}
					res := clitest.Processes(t, []string{"--home", home, "sql", "select count(*) from raw.task_runs"})[0]
					reads.Add(1)
					if res.Code != clitest.ExitOK {
						failedReads.Add(1)
						t.Errorf("cra sql during the runs: exit %d: %s", res.Code, res.Stderr)
					}
				}
			}()
			solve := func(task string) []string {
				return []string{"--home", home, "--json", "solve", "--repo", r.Dir, task}
			}
			runs := clitest.Processes(t, solve("Fix add: it must return the sum"), solve("Fix add, said another way"))
			close(done)
			wg.Wait()
			for i, res := range runs {
				var out struct {
					TaskID string `json:"task_id"`
					Status string `json:"status"`
				}
				if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil || res.Code != clitest.ExitOK || out.Status != "complete" {
					t.Fatalf("run %d: exit %d, %v\n%s\n%s", i, res.Code, err, res.Stdout, res.Stderr)
				}
				if left := orchestrator.Leftovers(filepath.Join(home, "worktrees", out.TaskID)); len(left) > 0 {
					orchestrator.KillLeftovers(filepath.Join(home, "worktrees", out.TaskID))
					t.Errorf("run %d left test processes %v", i, left)
				}
			}
			if got := cli.SQLRows(t, home, "select status, count(*) from raw.orchestrator_runs group by all"); got != "status,count_star()\ncomplete,2\n" {
				t.Errorf("orchestrator runs: %q", got)
			}
			t.Logf("%d reads beside the runs", reads.Load())
			if reads.Load() == 0 || failedReads.Load() > 0 {
				t.Errorf("%d reads beside the runs, %d failed", reads.Load(), failedReads.Load())
			}
		})
	}
}
