package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/golden"
)

// evalRowsSQL writes a plain eval run of 300 tasks over four repositories
// the way `cra eval` leaves it: scope wrong in 40 % of tasks and failure
// following it, precision wrong in a third, independently.
const evalRowsSQL = `
INSERT INTO raw.eval_runs (name, oracle, split, repos, stages, sample, seed, models, cra_version, started_at, finished_at, status)
VALUES ('nightly', [], 'validation', [], ['scope', 'precision'], NULL, 1, '{}', 'test',
	TIMESTAMPTZ '2026-03-08 09:00:00+00', TIMESTAMPTZ '2026-03-08 10:00:00+00', 'complete');
CREATE TEMP TABLE planted AS SELECT 'task-' || i AS task, '/repos/r' || (i % 4) AS repo,
	i % 5 < 2 AS scope_wrong, i % 3 = 0 AS prec_wrong,
	CASE WHEN i % 5 < 2 THEN i % 20 <> 0 ELSE i % 20 IN (2, 3) END AS failed
	FROM range(300) t(i);
INSERT INTO raw.eval_tasks (eval_run_id, task_id, repo_path, task_run_id, status, error, model_ms, elapsed_ms, finished_at)
	SELECT 1, task, repo, NULL, 'scored', NULL, 0, 0, TIMESTAMPTZ '2026-03-08 10:00:00+00' FROM planted;
INSERT INTO raw.eval_results (eval_run_id, task_id, task_run_id, stage, metric, value)
	SELECT 1, task, NULL, 'scope', 'correct', CASE WHEN scope_wrong THEN 0 ELSE 1 END FROM planted
	UNION ALL SELECT 1, task, NULL, 'precision', 'correct', CASE WHEN prec_wrong THEN 0 ELSE 1 END FROM planted
	UNION ALL SELECT 1, task, NULL, 'end_to_end', 'success', CASE WHEN failed THEN 0 ELSE 1 END FROM planted;`

func TestTrainPlanCommand(t *testing.T) {
	home := newHome(t)
	r := clitest.HistoryRepo(t)
	mustRun(t, home, "bootstrap", r.Dir) // synthetic ground truth for curate-data
	clitest.TrainAll(t, home)
	mustRun(t, home, "sql", "--write", evalRowsSQL)

	out := filepath.Join(t.TempDir(), "plan")
	stdout := mustRun(t, home, "train-plan", "--no-llm", "--out", out)
	golden.Assert(t, filepath.Join("testdata", "train_plan", "planted.golden"), []byte(strings.ReplaceAll(stdout, out, "OUT")))
	for _, f := range []string{"plan.json", "report.md", "report.html"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}

	// --json prints plan.json (here given after the command's own flags).
	var plan struct {
		PlanID       int64  `json:"plan_id"`
		TargetStage  string `json:"target_stage"`
		DataCriteria struct {
			Stages  []string `json:"stages"`
			Sources []string `json:"sources"`
		} `json:"data_criteria"`
		DataSource struct {
			Available map[string]int `json:"available"`
		} `json:"data_source"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, home, "train-plan", "--no-llm", "--out", filepath.Join(t.TempDir(), "again"), "--json")), &plan); err != nil {
		t.Fatal(err)
	}
	if plan.PlanID != 2 || plan.TargetStage != "scope" || !reflect.DeepEqual(plan.DataCriteria.Stages, []string{"scope"}) ||
		plan.DataSource.Available["synthetic"] == 0 {
		t.Errorf("--json plan %+v: want plan 2 for scope, with the synthetic scope targets counted", plan)
	}

	// curate-data follows the plan: its stage only, recorded under its row.
	mustRun(t, home, "curate-data", "--training-plan", filepath.Join(out, "plan.json"), "--name", "scope-v1")
	got := mustRun(t, home, "sql", "--format", "csv", `SELECT (SELECT string_agg(DISTINCT stage, ',') FROM raw.training_examples WHERE dataset = 'scope-v1'),
		(SELECT training_plan_id FROM raw.dataset_versions WHERE name = 'scope-v1'), (SELECT count(*) FROM raw.training_plans)`)
	if lines := strings.Split(strings.TrimSpace(got), "\n"); len(lines) != 2 || lines[1] != "scope,1,2" {
		t.Errorf("dataset from the plan: %q; want scope examples only, under training plan 1, and no new plan row", got)
	}

	// Stages given on the command line win over the plan's.
	mustRun(t, home, "curate-data", "--training-plan", filepath.Join(out, "plan.json"), "--name", "plan-v1", "--stages", "plan")
	if got := mustRun(t, home, "sql", "--format", "csv", `SELECT DISTINCT stage FROM raw.training_examples WHERE dataset = 'plan-v1'`); got != "stage\nplan\n" {
		t.Errorf("--stages plan with a scope plan: %q, want plan", got)
	}
}

func TestTrainPlanOnAnEmptyStore(t *testing.T) {
	home := newHome(t)
	res := cra(t, home, "", "train-plan", "--no-llm")
	if res.code != exitOK || !strings.Contains(res.stdout, "Run `cra eval`") {
		t.Fatalf("exit %d, stdout %q: want exit 0 and the advice to run cra eval", res.code, res.stdout)
	}
	if entries, _ := os.ReadDir(filepath.Join(home, "exports")); len(entries) != 0 {
		t.Errorf("exports after an empty train-plan: %v", entries)
	}
	if got := mustRun(t, home, "sql", "--format", "csv", "SELECT count(*) FROM raw.training_plans"); got != "count_star()\n0\n" {
		t.Errorf("training plans: %q, want none", got)
	}
	if res := cra(t, home, "", "train-plan", "--no-llm", "--eval", "weekly"); res.code != exitUsage || !strings.Contains(res.stderr, "run `cra eval` first") {
		t.Errorf("unknown --eval: exit %d, stderr %q; want a usage error", res.code, res.stderr)
	}
}

func TestCurateRefusesAPlanItCannotBuild(t *testing.T) {
	home := newHome(t)
	r := clitest.HistoryRepo(t)
	mustRun(t, home, "bootstrap", r.Dir)
	clitest.TrainAll(t, home)
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		plan string
		code int
		want string
	}{
		"not JSON":         {"target: scope", exitUsage, "not a training plan"},
		"logged only":      {`{"target_stage": "task_analysis", "data_criteria": {"stages": ["task_analysis"], "sources": ["logged"]}}`, exitUsage, "nothing from logged yet"},
		"a hand-made plan": {`{"target_stage": "plan", "base_model": "reasoning"}`, exitOK, ""},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".json")
		os.WriteFile(path, []byte(tc.plan), 0o644)
		res := cra(t, home, "", "curate-data", "--training-plan", path, "--name", strings.ReplaceAll(name, " ", "-"))
		if res.code != tc.code || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d saying %q", name, res.code, res.stderr, tc.code, tc.want)
		}
	}
}

// `cra status` shows the last train-plan run even when it chose no stage
// (no training_plans row, only its task_runs row), and what it decided.
func TestStatusShowsTheLastTrainPlan(t *testing.T) {
	home := newHome(t)
	lastTrainPlan := func() (last bool, detail string) {
		var st struct {
			LastRuns []struct {
				Kind   string
				Count  int
				Last   *string
				Status string
				Detail string
			} `json:"last_runs"`
		}
		if err := json.Unmarshal([]byte(mustRun(t, home, "--json", "status")), &st); err != nil {
			t.Fatal(err)
		}
		for _, r := range st.LastRuns {
			if r.Kind == "train_plan" {
				return r.Last != nil && r.Count == 1 && r.Status == "ok", r.Detail
			}
		}
		t.Fatalf("no train_plan in %+v", st.LastRuns)
		return false, ""
	}
	if last, _ := lastTrainPlan(); last {
		t.Fatal("a train-plan before any ran")
	}
	// Eight tasks: evidence, too little to choose a stage.
	mustRun(t, home, "sql", "--write", strings.Replace(evalRowsSQL, "range(300)", "range(8)", 1))
	mustRun(t, home, "train-plan", "--no-llm", "--out", filepath.Join(t.TempDir(), "plan"))
	if got := mustRun(t, home, "sql", "--format", "csv", "SELECT count(*) FROM raw.training_plans"); got != "count_star()\n0\n" {
		t.Fatalf("training plans: %q; the test needs a run that chose no stage", got)
	}
	if last, detail := lastTrainPlan(); !last || detail != "no stage chosen" {
		t.Errorf("status after a train-plan that chose no stage: last run %v, %q; want it shown, ok, with no stage chosen", last, detail)
	}
	if st := mustRun(t, home, "status"); !strings.Contains(st, "no stage chosen") {
		t.Errorf("cra status:\n%s", st)
	}
}
