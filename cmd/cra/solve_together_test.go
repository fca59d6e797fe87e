package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cra-dev/cra/agent/orchestrator"
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
			s := &solveScript{meta: onePart, part: oneStep, implement: []string{fixAdd}}
			srv := s.server(t)
			r := calcRepo(t)
			home := solveHome(t, srv, r, "sandbox = \""+sandbox+"\"\n")
			setCfg(t, home, testCalc, "setsid sleep 600 & sleep 1; "+testCalc)
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
					res := craProcesses(t, []string{"--home", home, "sql", "select count(*) from raw.task_runs"})[0]
					reads.Add(1)
					if res.code != exitOK {
						failedReads.Add(1)
						t.Errorf("cra sql during the runs: exit %d: %s", res.code, res.stderr)
					}
				}
			}()
			solve := func(task string) []string {
				return []string{"--home", home, "--json", "solve", "--repo", r.Dir, task}
			}
			runs := craProcesses(t, solve("Fix add: it must return the sum"), solve("Fix add, said another way"))
			close(done)
			wg.Wait()
			for i, res := range runs {
				var out struct {
					TaskID string `json:"task_id"`
					Status string `json:"status"`
				}
				if err := json.Unmarshal([]byte(res.stdout), &out); err != nil || res.code != exitOK || out.Status != "complete" {
					t.Fatalf("run %d: exit %d, %v\n%s\n%s", i, res.code, err, res.stdout, res.stderr)
				}
				if left := orchestrator.Leftovers(filepath.Join(home, "worktrees", out.TaskID)); len(left) > 0 {
					orchestrator.KillLeftovers(filepath.Join(home, "worktrees", out.TaskID))
					t.Errorf("run %d left test processes %v", i, left)
				}
			}
			if got := sqlRows(t, home, "select status, count(*) from raw.orchestrator_runs group by all"); got != "status,count_star()\ncomplete,2\n" {
				t.Errorf("orchestrator runs: %q", got)
			}
			t.Logf("%d reads beside the runs", reads.Load())
			if reads.Load() == 0 || failedReads.Load() > 0 {
				t.Errorf("%d reads beside the runs, %d failed", reads.Load(), failedReads.Load())
			}
		})
	}
}

// setCfg replaces old with new in home's config.toml.
func setCfg(t *testing.T, home, old, new string) {
	t.Helper()
	cfgPath := filepath.Join(home, "config.toml")
	cfg, err := os.ReadFile(cfgPath)
	if err != nil || !strings.Contains(string(cfg), old) {
		t.Fatalf("config.toml has no %q (%v)", old, err)
	}
	if err := os.WriteFile(cfgPath, []byte(strings.Replace(string(cfg), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}
