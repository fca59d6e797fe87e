package eval_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/eval"
	"github.com/cra-dev/cra/agent/eval/evaltest"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/bootstrap"
	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/ingest/walk"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// fixture is a mined home whose every task is held out, and a fake model
// that knows their ground truth.
type fixture struct {
	home  string
	repo  *gittest.Repo
	cfg   config.Config
	tasks []eval.Task
	srv   *fakellm.Server
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{home: storetest.Home(t), repo: evaltest.CalcHistory(t), cfg: config.Default()}
	f.cfg.Curate.ValidationFraction = 1 // every commit in validation: every task held out
	if _, err := bootstrap.Run(context.Background(), f.home, []string{f.repo.Dir}, bootstrap.Options{Jobs: 1, Filter: f.cfg.Bootstrap}); err != nil {
		t.Fatal(err)
	}
	s, err := kb.Open(context.Background(), f.home, kb.Raw, kb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.tasks, err = eval.Select(context.Background(), s.DB, f.selection())
	s.Close()
	if err != nil || len(f.tasks) != evaltest.CalcTasks {
		t.Fatalf("%d held-out tasks (%v), want %d", len(f.tasks), err, evaltest.CalcTasks)
	}
	f.srv = fakellm.New(t)
	f.srv.AllowUnused()
	f.cfg.Models.Provider, f.cfg.Models.BaseURL = "ollama", f.srv.OllamaURL()
	f.cfg.Models.Coding, f.cfg.Models.Reasoning = "c:1b", "r:1b"
	f.cfg.Testing.TestCommand, f.cfg.Testing.TimeoutSeconds = evaltest.CalcTestCommand, 60
	return f
}

func (f *fixture) selection() eval.Selection {
	return eval.Selection{Split: eval.SplitAll, Rule: kb.NewSplitRule(f.cfg.Curate, nil), Seed: 1}
}

// plant makes the fake model answer from ground truth, with errors at
// these rates per stage.
func (f *fixture) plant(rates map[string]float64) *fakellm.OracleStats {
	return f.srv.SetOracle(fakellm.Oracle{Answer: evaltest.Answer(f.tasks), ErrorRate: rates})
}

func (f *fixture) run(t *testing.T, name string, oracle ...string) *eval.Report {
	t.Helper()
	rep, err := eval.Run(context.Background(), f.options(name, oracle...))
	if err != nil {
		t.Fatalf("eval %s %v: %v", name, oracle, err)
	}
	if rep.Errors > 0 {
		t.Fatalf("eval %s %v: %d tasks could not run: %q", name, oracle, rep.Errors,
			storetest.Rows(t, f.home, kb.Raw, "SELECT error FROM eval_tasks WHERE status = 'error'"))
	}
	return rep
}

func (f *fixture) options(name string, oracle ...string) eval.Options {
	return eval.Options{Home: f.home, Config: f.cfg, Name: name, Oracle: oracle, Selection: f.selection(), Jobs: 2,
		GraphOptions: graphOptions()}
}

func graphOptions() retrieval.GraphOptions {
	return retrieval.GraphOptions{LanguageOf: lang.LanguageOf,
		Source: func(p string) bool { return lang.Supported(lang.LanguageOf(p)) && !walk.VendoredPath(p) }}
}

func score(rep *eval.Report, stage, metric string) float64 {
	for _, s := range rep.Scores {
		if s.Stage == stage && s.Metric == metric {
			return s.Mean
		}
	}
	return -1
}

func diff(c *eval.Comparison, stage, metric string) (eval.Diff, bool) {
	if c == nil {
		return eval.Diff{}, false
	}
	for _, d := range c.Rows {
		if d.Stage == stage && d.Metric == metric {
			return d, true
		}
	}
	return eval.Diff{}, false
}

// A model that answers every stage right scores 1 on every stage and
// passes every task; one whose scope loses a touched file scores lower on
// scope and end to end; --oracle scope gives the success back (a lift
// whose interval excludes zero), --oracle precision does not; --compare
// reports the planted difference.
func TestEvalScoresStagesAndFindsThePlantedWeakStage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the agent on every task four times")
	}
	f := newFixture(t)
	f.plant(nil)
	good := f.run(t, "good")
	if good.Tasks != evaltest.CalcTasks || good.Scored != evaltest.CalcTasks || good.Errors != 0 {
		t.Fatalf("report %+v", good)
	}
	for _, s := range good.Scores {
		if s.Mean != 1 && s.Metric != eval.MetricPrecision {
			t.Errorf("a right model scores %s %s %.3f, want 1", s.Stage, s.Metric, s.Mean)
		}
	}
	for _, stage := range append(eval.ScoredStages, eval.StageEndToEnd) {
		m := eval.MetricCorrect
		if stage == eval.StageEndToEnd {
			m = eval.MetricSuccess
		}
		if got := score(good, stage, m); got != 1 {
			t.Errorf("%s %s = %.3f, want 1", stage, m, got)
		}
	}
	if got := score(good, "implement", eval.MetricTests); got != 1 {
		t.Errorf("implement tests = %.3f: the runs pass the commits' own tests", got)
	}

	f.plant(map[string]float64{"scope": 1})
	weak := f.run(t, "weak")
	if got := score(weak, "scope", eval.MetricCorrect); got != 0 {
		t.Errorf("scope correct = %.3f with every scope answer wrong", got)
	}
	if got := score(weak, eval.StageEndToEnd, eval.MetricSuccess); got != 0 {
		t.Errorf("end-to-end success = %.3f when scope loses calc.py every time", got)
	}
	if got := score(weak, "part_plan", eval.MetricActions); got != 0 {
		t.Errorf("part_plan actions = %.3f: the run added no operation", got)
	}
	if got := score(good, "part_plan", eval.MetricActions); got != 1 {
		t.Errorf("part_plan actions = %.3f for a run that reproduced every commit", got)
	}
	if got := score(weak, "part_plan", eval.MetricRoles); got != 0 {
		t.Errorf("part_plan roles = %.3f: calc.py was left out, and the test file's step failed its tests: neither changed", got)
	}
	if got := score(weak, "precision", eval.MetricCorrect); got != 1 {
		t.Errorf("precision correct = %.3f: its answers were right", got)
	}

	scopeOracle := f.run(t, "weak", "scope")
	d, ok := diff(scopeOracle.Lift, eval.StageEndToEnd, eval.MetricSuccess)
	if !ok || d.Diff != 1 || d.Interval.Lo <= 0 {
		t.Errorf("--oracle scope: lift %+v, want +1 with an interval above zero", d)
	}
	precisionOracle := f.run(t, "weak", "precision")
	if d, ok := diff(precisionOracle.Lift, eval.StageEndToEnd, eval.MetricSuccess); !ok || d.Diff != 0 || !(d.Interval.Lo < 0 && d.Interval.Hi > 0) {
		t.Errorf("--oracle precision: lift %+v, want none", d)
	}

	opts := f.options("weak")
	opts.Compare = "good"
	again, err := eval.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := diff(again.Compare, eval.StageEndToEnd, eval.MetricSuccess); !ok || d.Diff != -1 || d.Interval.Hi >= 0 || d.N != evaltest.CalcTasks {
		t.Errorf("--compare good: %+v, want -1 on %d tasks with an interval below zero", d, evaltest.CalcTasks)
	}
	// The re-run resumed a finished eval: nothing ran again.
	rows := storetest.Rows(t, f.home, kb.Raw, `SELECT r.name, list_sort(r.oracle)::VARCHAR, count(t.task_id) FROM eval_runs r
		LEFT JOIN eval_tasks t ON t.eval_run_id = r.id GROUP BY ALL ORDER BY 1, 2`)
	want := []string{"good\t[]\t4", "weak\t[]\t4", "weak\t[precision]\t4", "weak\t[scope]\t4"}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("eval rows:\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	// Every run is a logged solve run, its oracle calls under model "oracle".
	if n := storetest.Rows(t, f.home, kb.Raw, `SELECT count(*) FROM retrieval_llm_calls WHERE model = 'oracle' AND call_type = 'scope'`); n[0] == "0" {
		t.Error("no scope call was answered by the oracle")
	}
	if n := storetest.Rows(t, f.home, kb.Raw, `SELECT count(*) FROM eval_tasks t LEFT JOIN task_runs r ON r.id = t.task_run_id WHERE r.mode IS DISTINCT FROM 'solve'`); n[0] != "0" {
		t.Errorf("%s eval tasks without their solve run", n[0])
	}
	// Nothing is left behind: no scratch knowledge base, no branch.
	if b := f.repo.Git("branch", "--list", "cra/*"); b != "" {
		t.Errorf("branches left in the repository: %s", b)
	}
	if m, _ := filepath.Glob(filepath.Join(eval.KnowledgeDir(f.home), "*")); len(m) != 0 {
		t.Errorf("scratch knowledge bases left: %v", m)
	}
}

// A merged branch of two commits is evaluated as a task of two parts: the
// model that answers right plans both parts, implements them in order and
// reproduces the branch's tip.
func TestEvalOfAMergedBranch(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the agent")
	}
	r := gittest.New(t)
	r.Write("calc.py", "def add(a, b):\n    return a + b\n")
	r.Write("report.py", "def show(x):\n    return str(x)\n")
	r.Commit("Create the calculator and its report")
	r.Git("checkout", "-q", "-b", "ops")
	r.Write("calc.py", "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n")
	r.Commit("Add a sub function to calc.py for differences")
	r.Write("report.py", "from calc import sub\n\n\ndef show(x):\n    return str(x)\n\n\ndef gap(a, b):\n    return show(sub(a, b))\n")
	r.Commit("Report the gap between two numbers in report.py")
	r.Git("checkout", "-q", "main")
	r.Write("README.md", "calc\n")
	r.Commit("Describe the calculator in a readme file")
	merge := r.Merge("ops", "Merge pull request #2 from me/ops\n\nReport gaps between numbers")

	f := &fixture{home: storetest.Home(t), repo: r, cfg: config.Default()}
	f.cfg.Curate.HoldoutRepos = []string{r.Dir}
	if _, err := bootstrap.Run(context.Background(), f.home, []string{r.Dir}, bootstrap.Options{Jobs: 1, Filter: f.cfg.Bootstrap}); err != nil {
		t.Fatal(err)
	}
	sel := eval.Selection{Split: eval.SplitHoldout, Rule: kb.NewSplitRule(f.cfg.Curate, []string{r.Dir}), Seed: 1}
	s, err := kb.Open(context.Background(), f.home, kb.Raw, kb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.tasks, err = eval.Select(context.Background(), s.DB, sel)
	s.Close()
	var mergeTask *eval.Task
	for i := range f.tasks {
		if f.tasks[i].Commit == merge {
			mergeTask = &f.tasks[i]
		}
	}
	if err != nil || mergeTask == nil || len(mergeTask.Truth.MetaPlan.Parts) != 2 {
		t.Fatalf("no two-part task for the merge among %d tasks (%v)", len(f.tasks), err)
	}
	f.srv = fakellm.New(t)
	f.srv.AllowUnused()
	f.cfg.Models.Provider, f.cfg.Models.BaseURL = "ollama", f.srv.OllamaURL()
	f.cfg.Models.Coding, f.cfg.Models.Reasoning = "c:1b", "r:1b"
	f.plant(nil)
	opts := f.options("merges")
	opts.Selection = sel
	rep, err := eval.Run(context.Background(), opts)
	if err != nil || rep.Errors > 0 {
		t.Fatalf("%v %+v", err, rep)
	}
	rows := storetest.Rows(t, f.home, kb.Raw, `SELECT stage, metric, value FROM eval_results WHERE task_id = ? AND metric IN ('correct', 'success', 'parts')
		ORDER BY ALL`, mergeTask.ID)
	want := []string{"end_to_end\tsuccess\t1", "implement\tcorrect\t1", "meta_plan\tcorrect\t1", "meta_plan\tparts\t1",
		"precision\tcorrect\t1", "scope\tcorrect\t1", "task_analysis\tcorrect\t1"}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("the merge task's scores:\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	if n := storetest.Rows(t, f.home, kb.Raw, `SELECT count(*) FROM orchestrator_passes p JOIN task_runs t ON t.id = p.task_run_id
		WHERE p.pass_type = 'part_plan' AND starts_with(t.task_id, ?)`, "eval1-"+mergeTask.ID[:16]); n[0] != "2" {
		t.Errorf("%s part plans in the merge task's run, want 2", n[0])
	}
}
