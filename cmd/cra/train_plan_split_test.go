package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/eval/evaltest"
	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/kb"
)

// Finding 12: a training plan after `cra eval` trains on something. The
// eval runs on the validation split of a real repository (no repository
// held out); train-plan targets scope (the planted evidence of
// evalRowsSQL) and holds out what the configuration holds out — not the
// evaluated repository — sized for the train examples alone; curate-data
// with the plan builds scope with train rows. With the configuration then
// holding the repository out, curate-data refuses (exit 2, naming the
// stage, the held-out repository and what to change) and writes nothing.
func TestTrainPlanAfterEvalTrainsOnSomething(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs cra eval")
	}
	srv := fakellm.New(t)
	srv.AllowUnused()
	repo := evaltest.CalcHistory(t)
	home := craCLI.EvalHome(t, srv, repo.Dir, "")

	// A validation fraction between the commits' hashes: some commits in
	// validation (what eval runs), the others in train.
	var hashes []float64
	var stored string
	for _, row := range strings.Split(strings.TrimSpace(sqlRows(t, home, "SELECT repo_path, commit FROM raw.synthetic_tasks")), "\n")[1:] {
		f := strings.Split(row, ",")
		stored = f[0]
		hashes = append(hashes, kb.UnitHash(f[0], f[1]))
	}
	slices.Sort(hashes)
	if len(hashes) < 2 {
		t.Fatalf("%d mined commits: want two or more", len(hashes))
	}
	k := len(hashes) / 2
	fraction := (hashes[k-1] + hashes[k]) / 2
	clitest.SetConfig(t, home, "[curate]\n", "[curate]\nvalidation_fraction = "+strconv.FormatFloat(fraction, 'g', -1, 64)+"\n")

	// Evidence enough for a target (eval run 1, its tasks on other
	// repositories), then a real eval (run 2).
	mustRun(t, home, "sql", "--write", evalRowsSQL)
	clitest.OracleFor(t, srv, home, nil)
	if res := cra(t, home, "", "eval", "--name", "real"); res.code != exitOK || !strings.Contains(res.stdout, fmt.Sprintf("%d scored", k)) {
		t.Fatalf("eval: exit %d, want %d tasks scored: %s\n%s", res.code, k, res.stderr, res.stdout)
	}
	if got := sqlRows(t, home, "SELECT r.name, r.split, count(*) FROM raw.eval_tasks t JOIN raw.eval_runs r ON r.id = t.eval_run_id GROUP BY ALL ORDER BY 1"); got !=
		fmt.Sprintf("name,split,count_star()\nnightly,validation,300\nreal,all-held-out,%d\n", k) {
		t.Fatalf("eval tasks by run:\n%s", got)
	}

	out := filepath.Join(t.TempDir(), "plan")
	mustRun(t, home, "train-plan", "--no-llm", "--out", out)
	planPath := filepath.Join(out, "plan.json")
	var plan struct {
		TargetStage  string `json:"target_stage"`
		DataCriteria struct {
			HoldoutRepos       []string `json:"holdout_repos"`
			ValidationFraction float64  `json:"validation_fraction"`
		} `json:"data_criteria"`
		DataSource struct {
			Examples      int `json:"examples"`
			TrainExamples int `json:"train_examples"`
		} `json:"data_source"`
		Hyperparameters struct {
			Examples, Steps, Epochs, BatchSize int
		} `json:"hyperparameters"`
	}
	raw, _ := os.ReadFile(planPath)
	if err := json.Unmarshal(raw, &plan); err != nil {
		t.Fatal(err)
	}
	// The scope targets of the train commits, by the split rule.
	trainScope := 0
	rule := kb.NewSplitRule(config.Curate{ValidationFraction: fraction}, nil) // CalcHistory has no merged branch
	for _, row := range strings.Split(strings.TrimSpace(sqlRows(t, home, "SELECT commit FROM raw.synthetic_targets WHERE stage = 'scope'")), "\n")[1:] {
		if rule.Split(stored, row) == kb.SplitTrain {
			trainScope++
		}
	}
	if plan.TargetStage != "scope" || len(plan.DataCriteria.HoldoutRepos) != 0 || plan.DataCriteria.ValidationFraction != fraction {
		t.Errorf("plan for %q holding out %v with fraction %g: want scope, no repository held out (the evaluated one neither), fraction %g",
			plan.TargetStage, plan.DataCriteria.HoldoutRepos, plan.DataCriteria.ValidationFraction, fraction)
	}
	if h := plan.Hyperparameters; trainScope == 0 || h.Examples != trainScope || plan.DataSource.TrainExamples != trainScope ||
		plan.DataSource.Examples <= trainScope || h.Steps != (trainScope+15)/16*h.Epochs {
		t.Errorf("sized for %d examples (%d steps), data source %+v: want the %d scope targets in train, fewer than all",
			h.Examples, h.Steps, plan.DataSource, trainScope)
	}

	mustRun(t, home, "curate-data", "--training-plan", planPath, "--name", "scope")
	got := sqlRows(t, home, "SELECT split, count(*) FROM raw.training_examples WHERE dataset = 'scope' GROUP BY 1 ORDER BY 1")
	if !strings.Contains(got, "train,") {
		t.Errorf("the plan's dataset has no train rows:\n%s", got)
	}

	// Everything held out by the configuration: refused, nothing written.
	clitest.SetConfig(t, home, "[curate]\n", fmt.Sprintf("[curate]\nholdout_repos = [%q]\n", repo.Dir))
	res := cra(t, home, "", "curate-data", "--training-plan", planPath, "--name", "held")
	for _, want := range []string{"no train example for scope", "from held-out repositories [" + stored + "]",
		"hold fewer repositories out", "No dataset written"} {
		if res.code != exitUsage || !strings.Contains(res.stderr, want) {
			t.Errorf("curate-data with every repository held out: exit %d, stderr lacks %q:\n%s", res.code, want, res.stderr)
		}
	}
	if got := sqlRows(t, home, `SELECT (SELECT count(*) FROM raw.training_examples WHERE dataset = 'held'),
		(SELECT count(*) FROM raw.training_examples_staging WHERE dataset = 'held'),
		(SELECT count(*) FROM raw.dataset_versions WHERE name = 'held')`); !strings.HasSuffix(got, "\n0,0,0\n") {
		t.Errorf("a refused dataset left rows (examples, staged, versions):\n%s", got)
	}
}
