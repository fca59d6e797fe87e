package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/eval"
	"github.com/cra-dev/cra/agent/eval/evaltest"
	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// cra eval on the command line: the scoreboard, and an eval killed -9 at
// several points then run again ends with the rows of an eval never
// interrupted.
func TestEvalCommandAndItsResumeAfterKill(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs cra eval several times")
	}
	srv := fakellm.New(t)
	srv.AllowUnused()
	repo := evaltest.CalcHistory(t)
	homes := []string{cli.EvalHome(t, srv, repo.Dir, fmt.Sprintf("holdout_repos = [%q]", repo.Dir))}
	for range 2 {
		homes = append(homes, clitest.CopyHome(t, homes[0]))
	}
	clitest.OracleFor(t, srv, homes[0], nil)

	start := time.Now()
	res := cli.Cra(t, homes[0], "", "eval", "--name", "nightly")
	if res.Code != clitest.ExitOK {
		t.Fatalf("exit %d: %s\n%s", res.Code, res.Stderr, res.Stdout)
	}
	took := time.Since(start)
	for _, want := range []string{"eval nightly (oracle: none): complete, 4 tasks, 4 scored, 0 could not run",
		"end_to_end     success      4  1.000  [0.510, 1.000]", "scope          recall       4  1.000"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("the scoreboard lacks %q:\n%s", want, res.Stdout)
		}
	}
	want := cli.EvalRows(t, homes[0])
	if st := cli.MustRun(t, homes[0], "status"); !strings.Contains(st, "nightly: 4 tasks scored, 0 could not run") {
		t.Errorf("cra status does not show the eval:\n%s", st)
	}
	if again := cli.Cra(t, homes[0], "", "--json", "eval", "--name", "nightly"); again.Code != clitest.ExitOK || cli.EvalRows(t, homes[0]) != want {
		t.Errorf("a re-run of a finished eval changed its rows (exit %d): %s", again.Code, again.Stderr)
	} else {
		var rep eval.Report
		if err := json.Unmarshal([]byte(again.Stdout), &rep); err != nil || rep.Scored != 4 {
			t.Errorf("--json: %v %+v", err, rep)
		}
	}

	killed := 0
	for i, frac := range []float64{0.25, 0.5} {
		home := homes[i+1]
		t.Run(fmt.Sprintf("at%.0f%%", frac*100), func(t *testing.T) {
			args := []string{"--home", home, "eval", "--name", "nightly"}
			if storetest.KillAfter(t, []string{clitest.ChildEnv(args...)}, 300*time.Millisecond+time.Duration(frac*float64(took))) {
				killed++ // else it finished first: the re-run must still change nothing
			}
			t.Logf("killed with %s tasks done", strings.TrimSpace(strings.Split(cli.SQLRows(t, home, "select count(*) from raw.eval_tasks"), "\n")[1]))
			if res := cli.Cra(t, home, "", "eval", "--name", "nightly"); res.Code != clitest.ExitOK {
				t.Fatalf("the re-run: exit %d: %s\n%s", res.Code, res.Stderr, res.Stdout)
			}
			if got := cli.EvalRows(t, home); got != want {
				t.Errorf("rows after the re-run differ from a clean eval's:\n%s", clitest.LineDiff(want, got))
			}
			if entries, _ := os.ReadDir(filepath.Join(home, "sessions")); len(entries) != 0 {
				t.Errorf("sessions left: %v", entries)
			}
		})
	}
	if killed == 0 {
		t.Error("no eval was killed mid-run: the test proved nothing")
	}
	if b := repo.Git("branch", "--list", "cra/*"); b != "" {
		t.Errorf("branches left in the repository: %s", b)
	}
	// train-plan reads what eval wrote: four scored tasks, too few for a plan.
	if tp := cli.Cra(t, homes[0], "", "train-plan", "--no-llm", "--out", filepath.Join(t.TempDir(), "tp")); tp.Code != clitest.ExitOK ||
		!strings.Contains(tp.Stdout, "4 scored eval tasks with an end-to-end outcome") {
		t.Errorf("train-plan after the eval: exit %d\n%s%s", tp.Code, tp.Stdout, tp.Stderr)
	}
	// Decontamination: with the repository held out, curate-data puts the
	// evaluated tasks in validation; with the configuration changed so
	// that they would train, it refuses and writes nothing.
	if res := cli.Cra(t, homes[0], "", "curate-data", "--name", "ok", "--validation-only"); res.Code != clitest.ExitOK {
		t.Errorf("curate-data with the eval's split: exit %d %s", res.Code, res.Stderr)
	}
	cfgPath := filepath.Join(homes[0], "config.toml")
	cfg, _ := os.ReadFile(cfgPath)
	if err := os.WriteFile(cfgPath, []byte(strings.Replace(string(cfg), fmt.Sprintf("holdout_repos = [%q]", repo.Dir), "validation_fraction = 0.0", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	res = cli.Cra(t, homes[0], "", "curate-data", "--name", "leak")
	if res.Code != clitest.ExitUsage || !strings.Contains(res.Stderr, "commits cra eval scored the agent on") || !strings.Contains(res.Stderr, "eval nightly") {
		t.Errorf("curate-data that would train on evaluated tasks: exit %d %s", res.Code, res.Stderr)
	}
	if got := cli.SQLRows(t, homes[0], "select count(*) from raw.dataset_versions where name = 'leak'"); !strings.HasSuffix(got, "\n0\n") {
		t.Errorf("the refused dataset was written: %s", got)
	}
}

// The tasks an eval runs are exactly the ones curate-data puts in no
// train split: with half the commits held out, none of the eval's tasks
// has a train example, and every task it leaves out has one.
func TestEvalRunsOnlyHeldOutTasks(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.AllowUnused()
	repo := filepath.Join(t.TempDir(), "repo")
	gittest.Synthetic{Files: 20, Commits: 60, Funcs: 3, Realistic: true}.Build(t, repo)
	home := cli.EvalHome(t, srv, repo, "validation_fraction = 0.5")
	cli.MustRun(t, home, "curate-data", "--name", "ds")
	s, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	picked := map[string]bool{}
	for _, split := range []string{eval.SplitValidation, eval.SplitAll} {
		tasks, err := eval.Select(context.Background(), s.DB, eval.Selection{Split: split, Rule: kb.NewSplitRule(config.Curate{ValidationFraction: 0.5}, nil), Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range tasks {
			picked[task.ID] = true
		}
	}
	rows := storetest.RowsOf(t, s.DB, `SELECT k.id, bool_or(e.split = 'train'), bool_or(e.split = 'validation') FROM synthetic_tasks k
		JOIN training_examples e ON e.repo_path = k.repo_path AND e.commit = k.commit GROUP BY 1`)
	train, held := 0, 0
	for _, r := range rows {
		f := strings.Split(r, "\t")
		switch {
		case picked[f[0]] && f[1] == "true":
			t.Errorf("task %s is in the eval and in a train split", f[0])
		case !picked[f[0]] && f[1] != "true":
			t.Errorf("task %s is in no train split, yet the eval left it out", f[0])
		}
		if f[1] == "true" {
			train++
		} else {
			held++
		}
	}
	if train == 0 || held == 0 {
		t.Fatalf("%d train and %d held-out tasks: the split proves nothing", train, held)
	}
	// A held-out repository is held out whole: all of it in holdout (and
	// all-held-out), none of it in validation.
	holdout := kb.NewSplitRule(config.Curate{ValidationFraction: 0.5}, []string{repo})
	for split, want := range map[string]int{eval.SplitHoldout: train + held, eval.SplitAll: train + held, eval.SplitValidation: 0} {
		tasks, err := eval.Select(context.Background(), s.DB, eval.Selection{Split: split, Rule: holdout, Seed: 1})
		if err != nil || len(tasks) != want {
			t.Errorf("--split %s with the repository held out: %d tasks (%v), want %d", split, len(tasks), err, want)
		}
	}
	s.Close()
	if res := cli.Cra(t, home, "", "eval", "--repos", "/no/such/repo"); res.Code != clitest.ExitUsage || !strings.Contains(res.Stderr, "not a mined repository") {
		t.Errorf("--repos typo: exit %d %s", res.Code, res.Stderr)
	}
	if res := cli.Cra(t, home, "", "eval", "--oracle", "adjustment"); res.Code != clitest.ExitUsage {
		t.Errorf("--oracle adjustment: exit %d %s", res.Code, res.Stderr)
	}
	// train-plan leaves the gate's evals out by their names' prefix: a
	// user's eval may not take one.
	if res := cli.Cra(t, home, "", "eval", "--name", kb.GateEvalPrefix+"mine"); res.Code != clitest.ExitUsage || !strings.Contains(res.Stderr, "cra adapters eval") {
		t.Errorf("--name %smine: exit %d %s", kb.GateEvalPrefix, res.Code, res.Stderr)
	}
}

// One process per eval: a second `cra eval` of the same name and oracle
// set exits 1 naming the first; another oracle set is another eval.
func TestEvalLocksItsNameAndOracleSet(t *testing.T) {
	srv := fakellm.New(t)
	srv.AllowUnused()
	repo := evaltest.CalcHistory(t)
	home := cli.EvalHome(t, srv, repo.Dir, fmt.Sprintf("holdout_repos = [%q]", repo.Dir))
	held, err := kb.LockInput(context.Background(), home, eval.Lock, eval.LockInput("nightly", nil), "cra eval --name nightly (the other run)", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	res := cli.Cra(t, home, "", "eval", "--name", "nightly")
	if res.Code != clitest.ExitFailures || !strings.Contains(res.Stderr, fmt.Sprintf("pid %d, cra eval --name nightly (the other run)", os.Getpid())) {
		t.Errorf("held: exit %d, stderr %q; want exit 1 naming the holder", res.Code, res.Stderr)
	}
	if got := cli.SQLRows(t, home, "select count(*) from raw.eval_runs"); !strings.HasSuffix(got, "\n0\n") {
		t.Errorf("the refused eval wrote rows: %s", got)
	}
}

// A stage planted weak (scope loses calc.py every time) on 20 tasks: the
// --oracle scope run gives the success back with an interval that
// excludes zero, and train-plan names scope. Twenty tasks is the least
// train-plan decides on (fewer: not_enough_data). The tasks run two at a
// time (--jobs 2), as a nightly eval on a model server would.
func TestEvalAndTrainPlanNameAPlantedWeakStage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the agent on 40 tasks")
	}
	const tasks = 20
	srv, home := calcEvalHome(t, evaltest.CalcOptions{Scale: tasks - evaltest.CalcTasks}, "")
	clitest.OracleFor(t, srv, home, map[string]float64{schema.StageScope: 1})
	weak := evalJSON(t, home, "--name", "weak", "--jobs", "2")
	if s, _ := scoreOf(weak, eval.StageEndToEnd, eval.MetricSuccess); s.N != tasks || s.Mean != 0 {
		t.Errorf("end to end with scope losing calc.py: %+v, want 0 on %d tasks", s, tasks)
	}
	lifted := evalJSON(t, home, "--name", "weak", "--oracle", "scope", "--jobs", "2")
	var lift *eval.Diff
	if lifted.Lift != nil {
		for i, d := range lifted.Lift.Rows {
			if d.Stage == eval.StageEndToEnd && d.Metric == eval.MetricSuccess {
				lift = &lifted.Lift.Rows[i]
			}
		}
	}
	if lift == nil || lift.N != tasks || lift.Diff != 1 || lift.Interval.Lo <= 0 {
		t.Fatalf("--oracle scope lift %+v, want +1 on %d tasks with an interval above zero", lift, tasks)
	}
	var plan struct {
		TargetStage string `json:"target_stage"`
	}
	out := cli.MustRun(t, home, "train-plan", "--no-llm", "--json", "--out", filepath.Join(t.TempDir(), "plan"))
	if err := json.Unmarshal([]byte(out), &plan); err != nil || plan.TargetStage != schema.StageScope {
		t.Errorf("train-plan: %v %q, want target scope", err, out)
	}
}

// Two evals of other names in two processes at once judge the same
// commit, with tests at its parent slower than a worktree's owner is
// waited for: each in scratch worktrees of its own, so neither loses a
// task, and the commit is judged in one row. (The suite is slow when it
// fails: at the parent, with the commit's tests laid over it, and in the
// steps before the operation is written.)
func TestTwoEvalProcessesJudgeTheSameCommits(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs slow tests in two evals at once")
	}
	slow := fmt.Sprintf("%s || { sleep 6; exit 1; }", evaltest.CalcTestCommand)
	srv, home := heldOutHome(t, evaltest.CalcHistory(t).Dir, slow, 60, "")
	clitest.OracleFor(t, srv, home, nil)
	run := func(name string) []string {
		return []string{"--home", home, "eval", "--name", name, "--sample", "1"}
	}
	for i, r := range clitest.Processes(t, run("a"), run("b")) {
		if r.Code != clitest.ExitOK {
			t.Errorf("eval %d: exit %d\n%s", i, r.Code, clitest.LastLines(r.Stderr, 10))
		}
	}
	if got := cli.SQLRows(t, home, "select count(*) as judged, count(distinct commit) as commits from raw.eval_commit_judgements"); got != "judged,commits\n1,1\n" {
		t.Errorf("judgements: %q", got)
	}
	if got := cli.SQLRows(t, home, "select count(*) filter (where status = 'scored') as scored, count(*) as tasks from raw.eval_tasks"); got != "scored,tasks\n2,2\n" {
		t.Errorf("eval tasks: %q", got)
	}
}
