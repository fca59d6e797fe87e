package solve_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/eval/evaltest"
	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/internal/gittest"
)

// With the model server down, cra eval, plan and solve stop before any
// task: exit 2 naming the model, its URL and the next step, and nothing
// written (no eval, run or orchestrator rows, no session, no worktree).
// The same commands run when the server is back.
func TestModelServerDownStopsBeforeAnyTask(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.AllowUnused()
	repo := evaltest.CalcHistory(t)
	home := cli.EvalHome(t, srv, repo.Dir, fmt.Sprintf("holdout_repos = [%q]", repo.Dir))
	down, err := fakellm.Start("")
	if err != nil {
		t.Fatal(err)
	}
	down.Close()
	setModelURL(t, home, srv.OllamaURL(), down.OllamaURL())

	reasoning := fmt.Sprintf("model r:1b at %s (ollama) did not answer", down.OllamaURL())
	coding := fmt.Sprintf("model c:1b at %s (ollama) did not answer", down.OllamaURL())
	next := "start the server or fix [models] in config.toml; `cra models check` tests them all"
	for _, tc := range []struct {
		name      string
		args      []string
		want, not []string
	}{
		{"eval", []string{"eval", "--sample", "2"}, []string{reasoning, coding, next}, []string{"--resume", "could not run"}},
		// The oracle answers implement: the coding model is not needed.
		{"eval with an oracle coder", []string{"eval", "--sample", "2", "--oracle", "implement"}, []string{reasoning, next}, []string{coding}},
		{"plan", []string{"plan", "--repo", repo.Dir, "Make add right"}, []string{reasoning, next}, []string{coding}},
		{"solve", []string{"solve", "--repo", repo.Dir, "Make add right"}, []string{reasoning, coding, next}, []string{"--resume"}},
		{"solve --plan", []string{"solve", "--repo", repo.Dir, "--plan", planFile(t), "Make add right"}, []string{reasoning, coding, next}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := cli.Cra(t, home, "", tc.args...)
			if res.Code != clitest.ExitUsage {
				t.Errorf("exit %d, want 2\n%s", res.Code, res.Stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, res.Stderr)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(res.Stderr, n) {
					t.Errorf("stderr has %q:\n%s", n, res.Stderr)
				}
			}
		})
	}
	checkNothingLeft(t, home, repo, "eval_runs", "eval_tasks")

	setModelURL(t, home, down.OllamaURL(), srv.OllamaURL())
	clitest.OracleFor(t, srv, home, nil)
	if res := cli.Cra(t, home, "", "eval", "--sample", "2"); res.Code != clitest.ExitOK || !strings.Contains(res.Stdout, "2 tasks, 2 scored, 0 could not run") {
		t.Errorf("the server back: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
}

// setModelURL points home's [models] from one server to another.
func setModelURL(t *testing.T, home, from, to string) {
	t.Helper()
	path := filepath.Join(home, "config.toml")
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), from) {
		t.Fatalf("config.toml has no %s (%v)", from, err)
	}
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(b), from, to)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// planFile is a plan for cra solve --plan.
func planFile(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "plan.json")
	plan := `{"task_summary": "Make add right", "affected_files": [{"path": "calc.py", "role": "modify",
		"changes": [{"symbol": "add", "action": "modify", "description": "return the sum", "depends_on": [], "depended_by": []}]}],
		"execution_order": ["calc.py"], "rationale": "one place"}`
	if err := os.WriteFile(path, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// cra solve with a remote_api provider whose key variable is unset (or
// empty) stops in preflight: exit 2 naming the variable and what to do,
// no request sent, and nothing left behind — no task_runs or
// orchestrator_runs row, no session, no worktree, no branch, no
// suggestion to --resume.
func TestSolveWithTheKeyVariableUnsetLeavesNothing(t *testing.T) {
	const keyVar = "CRA_TEST_SOLVE_KEY"
	srv := fakellm.New(t)
	srv.AllowUnused()
	r := clitest.CalcRepo(t)
	home := cli.NewHome(t)
	cli.MustRun(t, home, "init", "--provider", "remote_api", "--base-url", srv.OpenAIURL(), "--api-key-env", keyVar,
		"--coding-model", "c-1b", "--reasoning-model", "r-1b")
	cfgPath := filepath.Join(home, "config.toml")
	cfg, _ := os.ReadFile(cfgPath)
	cfg = []byte(strings.Replace(string(cfg), "[testing]\n", "[testing]\ntest_command = \""+clitest.TestCalc+"\"\n", 1))
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	cli.MustRun(t, home, "index", r.Dir)
	for _, tc := range []struct {
		name string
		set  func()
		what string
	}{
		{"unset", func() { t.Setenv(keyVar, "x"); os.Unsetenv(keyVar) }, "environment variable " + keyVar + " is not set"},
		{"empty", func() { t.Setenv(keyVar, " ") }, "environment variable " + keyVar + " is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.set()
			res := cli.Cra(t, home, "", "solve", "--repo", r.Dir, "Fix add: it must return the sum")
			if res.Code != clitest.ExitUsage || !strings.Contains(res.Stderr, tc.what) || !strings.Contains(res.Stderr, "export the API key") ||
				strings.Contains(res.Stderr, "--resume") {
				t.Errorf("exit %d, want %d naming %s and what to do, without --resume\nstderr: %s", res.Code, clitest.ExitUsage, keyVar, res.Stderr)
			}
			res = cli.Cra(t, home, "", "--json", "solve", "--repo", r.Dir, "Fix add: it must return the sum")
			if got := clitest.OneJSONObject(t, res.Stdout); got["exit_code"] != float64(clitest.ExitUsage) || !strings.Contains(got["error"].(string), tc.what) {
				t.Errorf("--json: %s", res.Stdout)
			}
			checkNothingLeft(t, home, r)
			if got := srv.Requests(); len(got) != 0 {
				t.Errorf("%d requests sent without a key", len(got))
			}
		})
	}
}

// checkNothingLeft checks that a run stopped before its start left nothing:
// no row in the run tables (and the raw tables named), no session or
// worktree in home, no cra/* branch in r.
func checkNothingLeft(t *testing.T, home string, r *gittest.Repo, tables ...string) {
	t.Helper()
	var counts []string
	for _, table := range append([]string{"task_runs", "orchestrator_runs", "retrieval_llm_calls", "session_archives"}, tables...) {
		counts = append(counts, "(select count(*) from raw."+table+")")
	}
	if written := cli.SQLRows(t, home, "select "+strings.Join(counts, " + ")+" as n"); written != "n\n0\n" {
		t.Errorf("rows written: %q", written)
	}
	for _, dir := range []string{"sessions", "worktrees"} {
		if entries, _ := os.ReadDir(filepath.Join(home, dir)); len(entries) != 0 {
			t.Errorf("%s left: %v", dir, entries)
		}
	}
	if b := r.Git("branch", "--list", "cra/*"); b != "" {
		t.Errorf("branches left in the repository: %s", b)
	}
}
