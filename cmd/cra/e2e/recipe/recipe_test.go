package recipe_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/e2e"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/internal/gittest"
)

// recipePeakRSS is the most memory any step of the recipe may take on the
// realistic fixture (issue 23's budget for real clones).
const recipePeakRSS = 1 << 30

// The README's recipe, in its order, on a repository with the shape of a
// real one (gittest.Project), each step a child process of a cra binary
// (built without -race: the figures are a user's): every step exits 0,
// writes the rows it should, and stays within the memory budget. The fake
// model answers from the ground truth bootstrap mined.
func TestRecipeOnARealisticRepository(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the whole recipe on a 600-commit repository")
	}
	start := time.Now()
	repo := filepath.Join(t.TempDir(), "shapes")
	// 600 commits keep what makes the fixture realistic — the 387 KB
	// source file, a 100 KB test file, merged branches, renames — at two
	// fifths of the default 1,500's time; real sizes are `make e2e`'s.
	shape := gittest.Project{Commits: 600}.Build(t, repo)
	t.Logf("fixture: %s", shape)
	bin := clitest.Binary(t)

	srv := fakellm.New(t)
	srv.AllowUnused()
	srv.SetBilling(e2e.Billing())
	srv.SetModels(e2e.Models()...)
	srv.SetAdapters(map[string]fakellm.AdapterBehaviour{e2e.AdapterServed: {}})
	home := filepath.Join(t.TempDir(), "home")
	const budget = 0.3
	steps := e2e.Recipe(home, e2e.Options{Repos: []string{repo}, ModelURL: srv.URL, EvalSample: 4, DistillBudget: budget, DistillSample: 200, AskSample: 1})
	var spentBefore, teacherSpent float64 // the server charges eval's calls too
	for i, s := range steps {
		switch s.Name {
		case "distill --dry-run":
			steps[i].After = func() error { spentBefore = srv.Spent(); return nil }
		case "distill":
			steps[i].After = func() error { teacherSpent = srv.Spent() - spentBefore; return nil }
		}
	}
	r := e2e.Runner{Cra: bin, Home: home, Wrapper: os.Args[0], Env: e2e.Env(),
		StartModel: func(ctx context.Context) error {
			oracle, n, err := e2e.Oracle(ctx, home)
			if err != nil {
				return err
			}
			t.Logf("the oracle knows %d tasks", n)
			srv.SetOracle(oracle)
			return nil
		}}
	results, err := r.Run(context.Background(), steps)
	var table strings.Builder
	e2e.PrintTable(&table, [][]e2e.Result{results}) //nolint:errcheck // a strings.Builder
	t.Logf("recipe (%v in all, fixture and build included):\n%s", time.Since(start).Round(time.Second), table.String())
	if err != nil {
		t.Fatal(err)
	}
	byStep := map[string]e2e.Result{}
	for _, res := range results {
		byStep[res.Step] = res
		switch {
		case res.OK: // exit 0, or the gate's verdict that the neutral adapter failed
		case res.Code == e2e.NotRun:
			t.Errorf("%s: not run (the step it needs failed)", res.Step)
		default:
			t.Errorf("%s: exit %d\n%s", res.Step, res.Code, clitest.LastLines(res.Stderr, 15))
		}
		if res.PeakRSS > recipePeakRSS {
			t.Errorf("%s: peak RSS %d MB, budget %d MB", res.Step, res.PeakRSS>>20, recipePeakRSS>>20)
		}
	}

	// Rows: what each step wrote, checked against the stores.
	count := func(query string) int {
		t.Helper()
		out := strings.TrimSpace(cli.MustRun(t, home, "sql", "--format", "csv", query))
		n, err := strconv.Atoi(out[strings.LastIndex(out, "\n")+1:])
		if err != nil {
			t.Fatalf("%s: %q", query, out)
		}
		return n
	}
	verified := count("SELECT sum(commits) FROM raw.bootstrap_funnel WHERE outcome = 'verified'")
	merges := count("SELECT count(*) FROM raw.synthetic_targets WHERE stage = 'meta_plan' AND json_array_length(target -> 'parts') > 1")
	if verified < shape.Commits/2 || merges < shape.Merges/2 {
		t.Errorf("bootstrap verified %d of %d commits and built %d multi-part tasks of %d merges", verified, shape.Commits, merges, shape.Merges)
	}
	if got := byStep["bootstrap"].Rows; got < int64(verified) {
		t.Errorf("bootstrap wrote %d rows for %d verified commits", got, verified)
	}
	synthetic := count("SELECT count(*) FROM raw.training_examples WHERE dataset = 'synthetic' AND version = 1")
	if synthetic < verified || byStep["curate-data"].Rows < int64(synthetic) {
		t.Errorf("curate-data: %d examples (step wrote %d rows) from %d verified commits", synthetic, byStep["curate-data"].Rows, verified)
	}
	for _, res := range results {
		if strings.HasPrefix(res.Step, "export ") && res.Step != "export logged" && res.Rows != int64(synthetic) {
			t.Errorf("%s: %d rows exported, the dataset has %d", res.Step, res.Rows, synthetic)
		}
	}
	// The ask eval asked a question of each kind the repository gives
	// (conceptual ones need module docstrings), each scored, and its
	// retrieval found something for some of them.
	if n := count("SELECT count(*) FROM raw.eval_tasks t JOIN raw.eval_runs r ON r.id = t.eval_run_id WHERE r.name = 'nightly-ask' AND t.status = 'scored'"); n < 3 || n > 4 {
		t.Errorf("ask --eval scored %d questions, want 3 or 4", n)
	}
	if n := count("SELECT count(*) FROM raw.eval_results e JOIN raw.eval_runs r ON r.id = e.eval_run_id WHERE r.name = 'nightly-ask' AND e.metric = 'recall_at_5' AND e.value > 0"); n == 0 {
		t.Error("ask --eval: no question's sources recalled an expected file")
	}
	if n := count("SELECT count(*) FROM raw.eval_tasks t JOIN raw.eval_runs r ON r.id = t.eval_run_id WHERE r.name = 'nightly' AND t.status = 'scored'"); n != 4 {
		t.Errorf("eval scored %d tasks, want the 4 sampled", n)
	}
	logged := count("SELECT count(*) FROM raw.training_examples WHERE dataset = 'logged'")
	if logged == 0 || byStep["export logged"].Rows != int64(logged) {
		t.Errorf("logged curation: %d examples, %d exported", logged, byStep["export logged"].Rows)
	}
	if n := count("SELECT count(*) FROM raw.distill_outcomes"); n == 0 {
		t.Error("the budgeted distill asked nothing")
	}
	if teacherSpent <= 0 || teacherSpent > budget {
		t.Errorf("the teacher charged $%.4f against a budget of $%.2f", teacherSpent, budget)
	}
	out := cli.MustRun(t, home, "sql", "--format", "csv", "SELECT sum(coalesce(settled_usd, reserved_usd)) <= "+strconv.FormatFloat(budget, 'f', -1, 64)+" FROM raw.distill_spend")
	if !strings.HasSuffix(strings.TrimSpace(out), "true") {
		t.Errorf("distill's own account of its spending is over the budget: %s", out)
	}
	for _, tr := range byStep["distill --dry-run"].Tables {
		if strings.HasPrefix(tr.Table, "raw.distill_cache") || strings.HasPrefix(tr.Table, "raw.distill_spend") || tr.Table == "raw.training_examples" {
			t.Errorf("distill --dry-run wrote %d rows to %s", tr.Rows, tr.Table)
		}
	}
	// The adapter's loop: one gate verdict on record, scope routed to the
	// adapter by force, and the route answering models check.
	if n := count("SELECT count(*) FROM raw.adapter_gates WHERE adapter = '" + e2e.AdapterName + "'"); n != 1 {
		t.Errorf("%d gate verdicts for the adapter, want 1", n)
	}
	if n := count("SELECT count(*) FROM raw.adapter_events WHERE stage = 'scope' AND to_name = '" + e2e.AdapterName + "' AND action = 'force'"); n != 1 {
		t.Errorf("%d forced promotions of the adapter, want 1", n)
	}
	if got := byStep["models check"].Stdout; !strings.Contains(got, e2e.AdapterName+"@1") {
		t.Errorf("models check does not ping the champion:\n%s", got)
	}
}
