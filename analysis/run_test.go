package analysis

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/internal/golden"
	"github.com/cra-dev/cra/internal/stats"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
)

// fixed makes a run's reports the same byte for byte every time.
func fixed(home string) Options {
	return Options{Dir: home, NoLLM: true, Config: config.Default(), TaskID: "train_plan-test", Version: "test",
		Now: func() time.Time { return time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC) }}
}

func run(t *testing.T, opts Options) *Result {
	t.Helper()
	if opts.Out == "" {
		opts.Out = filepath.Join(t.TempDir(), "out")
	}
	res, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPlantedPatternNamesScope(t *testing.T) {
	home := plantedStore(t, false)
	res := run(t, fixed(home))
	if res.Status != StatusPlan || res.Decision.Target != "scope" || res.Decision.Rule != RuleBlameShare {
		t.Fatalf("decision %+v: want scope by blame share", res.Decision)
	}
	e := res.Evidence
	scope, prec := e.Stage("scope"), e.Stage("precision")
	if a := scope.Association; a == nil || !a.ORCI.Excludes(1) || a.ORCI.Lo <= 1 || !scope.Significant {
		t.Errorf("scope association %+v: want an odds ratio interval above 1, significant", scope.Association)
	}
	if a := prec.Association; a == nil || a.ORCI.Excludes(1) || a.HolmP < Alpha || prec.Significant {
		t.Errorf("precision association %+v: want an interval holding 1 and Holm p >= 0.05 (noise)", prec.Association)
	}
	if scope.Correct.K != 150 || scope.Correct.N != 250 || scope.Blame.K != 90 || scope.Blame.N != 113 {
		t.Errorf("scope right %d/%d, blamed for %d/%d: want 150/250 and 90/113 (both plain runs)", scope.Correct.K, scope.Correct.N, scope.Blame.K, scope.Blame.N)
	}
	if e.Unattributed.K != 0 || e.Stage("task_analysis").Blame.K != 0 {
		t.Errorf("unattributed %d, task_analysis blamed %d: every failure has a wrong stage, task analysis never", e.Unattributed.K, e.Stage("task_analysis").Blame.K)
	}
	if !e.Regression.Fitted {
		t.Fatalf("regression not fitted: %s", e.Regression.Reason)
	}
	for _, c := range e.Regression.Coefficients {
		switch c.Term {
		case "scope wrong":
			if c.CI.Lo <= 0 {
				t.Errorf("scope coefficient %+v: want an interval above 0", c)
			}
		case "precision wrong":
			if !(c.CI.Lo < 0 && c.CI.Hi > 0) {
				t.Errorf("precision coefficient %+v: want an interval holding 0", c)
			}
		}
	}
	// The trend has both plain runs; oracle-free, so no lift.
	if len(e.Trend) != 2 || len(e.Lifts) != 0 {
		t.Errorf("trend %d runs, lifts %d: want 2 and 0", len(e.Trend), len(e.Lifts))
	}

	dir := filepath.Dir(res.Files[0])
	golden.Assert(t, filepath.Join("testdata", "planted", "report.md"), readFile(t, filepath.Join(dir, ReportMarkdown)))
	checkPage(t, readFile(t, filepath.Join(dir, ReportHTML)), readFile(t, filepath.Join(dir, ReportMarkdown)), []string{chartScores, chartBlame, chartRepos, chartTrend})
	planJSON := readFile(t, filepath.Join(dir, PlanFile))
	golden.Assert(t, filepath.Join("testdata", "planted", "plan.json"), planJSON)

	// The plan's row: its id is the one plan.json names, its raw plan the
	// same document; the run is a task_runs row of mode train_plan.
	var plan Plan
	if err := json.Unmarshal(planJSON, &plan); err != nil {
		t.Fatal(err)
	}
	rows := storetest.Rows(t, home, kb.Raw, `SELECT id, task_id, target_stage, base_model, source, raw_plan FROM training_plans`)
	if len(rows) != 1 {
		t.Fatalf("training_plans %v: want one row", rows)
	}
	f := strings.SplitN(rows[0], "\t", 6)
	var stored Plan
	if err := json.Unmarshal([]byte(f[5]), &stored); err != nil {
		t.Fatal(err)
	}
	if f[0] != "1" || plan.PlanID != 1 || f[1] != "train_plan-test" || f[2] != "scope" || f[3] != "reasoning" || f[4] != "synthetic" ||
		stored.PlanID != plan.PlanID || stored.Decision != plan.Decision {
		t.Errorf("row %v, plan id %d: want plan 1 of train_plan-test for scope, the raw plan being plan.json", f[:5], plan.PlanID)
	}
	if got := storetest.Rows(t, home, kb.Raw, `SELECT mode, execute_model, success, final_plan IS NOT NULL FROM task_runs WHERE mode = 'train_plan'`); len(got) != 1 ||
		got[0] != "train_plan\tnone\ttrue\ttrue" {
		t.Errorf("task_runs %v: want one finished train_plan run with its plan", got)
	}
}

func TestOracleLiftDecidesFirst(t *testing.T) {
	res := run(t, fixed(plantedStore(t, true)))
	if res.Decision.Target != "scope" || res.Decision.Rule != RuleOracleLift {
		t.Fatalf("decision %+v: want scope by oracle lift", res.Decision)
	}
	scope, prec := res.Evidence.Stage("scope").Lift, res.Evidence.Stage("precision").Lift
	if scope == nil || prec == nil {
		t.Fatalf("lifts scope %v precision %v: want both", scope, prec)
	}
	if scope.Pairs != 200 || scope.CI.Lo <= 0 || scope.Without.K != 110 || scope.WithOracle.K != 170 {
		t.Errorf("scope lift %+v: want 110 → 170 of 200 paired tasks, interval above 0", scope)
	}
	if prec.Lift != 0 || prec.CI.Excludes(0) {
		t.Errorf("precision lift %+v: want 0 with an interval holding it", prec)
	}
	// Oracle runs never count as plain observations.
	if res.Evidence.Observations != 250 {
		t.Errorf("observations %d: want the two plain runs' 250", res.Evidence.Observations)
	}
}

func TestNullStoreHasNoStandout(t *testing.T) {
	home := nullStore(t)
	res := run(t, fixed(home))
	if res.Status != StatusNoStandout || res.Plan != nil || !strings.Contains(res.Decision.Reason, "no stage stands out") {
		t.Fatalf("result %+v: want no stage standing out and no plan", res.Decision)
	}
	for _, s := range res.Evidence.Stages {
		if s.Significant {
			t.Errorf("stage %s significant in a null store: %+v", s.Stage, s.Association)
		}
	}
	if p := res.Decision.Power; p == nil || p.TasksNeeded <= p.TasksHave {
		t.Errorf("power %+v: want an estimate of more tasks than there are", res.Decision.Power)
	}
	dir := filepath.Dir(res.Files[0])
	if _, err := os.Stat(filepath.Join(dir, PlanFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("plan.json written without a target: %v", err)
	}
	golden.Assert(t, filepath.Join("testdata", "null", "report.md"), readFile(t, filepath.Join(dir, ReportMarkdown)))
	if rows := storetest.Rows(t, home, kb.Raw, `SELECT count(*) FROM training_plans`); rows[0] != "0" {
		t.Errorf("training_plans rows: %v, want none", rows)
	}
}

// TestOneRepository: with one repository the means still get intervals
// (over tasks), and the per-repository failure rate has none.
func TestOneRepository(t *testing.T) {
	res := run(t, fixed(oneRepoStore(t)))
	e := res.Evidence
	if e.Repos != 1 || res.Status != StatusPlan {
		t.Fatalf("%d repositories, status %s: want 1 and a plan", e.Repos, res.Status)
	}
	for _, m := range e.Stage("scope").Metrics {
		if m.Method != stats.MethodTaskBootstrap || !(m.CI.Lo < m.Value && m.Value < m.CI.Hi) {
			t.Errorf("scope %s: %v %v by %s, want a bootstrap over tasks with a nonzero interval around the mean", m.Metric, m.Value, m.CI, m.Method)
		}
	}
	if len(e.RepoFailures) != 1 || e.RepoFailures[0].Failure.CI.Known() || e.RepoFailures[0].Note != NoteOneRepository {
		t.Errorf("repository failures %+v: want one, with no interval and the note %q", e.RepoFailures, NoteOneRepository)
	}
	dir := res.OutDir
	md := readFile(t, filepath.Join(dir, ReportMarkdown))
	golden.Assert(t, filepath.Join("testdata", "onerepo", "report.md"), md)
	planJSON := readFile(t, filepath.Join(dir, PlanFile))
	golden.Assert(t, filepath.Join("testdata", "onerepo", "plan.json"), planJSON)
	validatePlan(t, planJSON)
	page := readFile(t, filepath.Join(dir, ReportHTML))
	for name, doc := range map[string][]byte{"report.md": md, "report.html": page} {
		if !bytes.Contains(doc, []byte("(n/a, 1 repository)")) {
			t.Errorf("%s does not say the repository's interval is n/a", name)
		}
	}
	var plan struct {
		Evidence struct {
			RepoFailures []map[string]any `json:"repo_failures"`
		} `json:"evidence"`
	}
	if err := json.Unmarshal(planJSON, &plan); err != nil {
		t.Fatal(err)
	}
	if f := plan.Evidence.RepoFailures; len(f) != 1 || f[0]["failure"].(map[string]any)["ci"] != nil || f[0]["note"] != NoteOneRepository {
		t.Errorf("plan.json repo_failures %v: want a null ci and the note", f)
	}
}

func TestEmptyStoreSaysRunEval(t *testing.T) {
	home := storetest.Home(t)
	opts := fixed(home)
	opts.Out = filepath.Join(t.TempDir(), "out")
	res := run(t, opts)
	if res.Status != StatusNotEnoughData || !strings.Contains(res.Decision.Reason, "cra eval") || res.Files != nil {
		t.Fatalf("result %+v: want not enough data, advice to run cra eval, nothing written", res)
	}
	if _, err := os.Stat(opts.Out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("output directory made for an empty store: %v", err)
	}
	if rows := storetest.Rows(t, home, kb.Raw, `SELECT (SELECT count(*) FROM training_plans) + (SELECT count(*) FROM task_runs)`); rows[0] != "0" {
		t.Errorf("rows written for an empty store: %v", rows)
	}
}

func TestFilterNamesMustExist(t *testing.T) {
	home := nullStore(t)
	for _, tc := range []struct {
		filter kb.LogFilter
		want   string
	}{
		{kb.LogFilter{Evals: []string{"weekly"}}, "the eval runs are:\n  nightly"},
		{kb.LogFilter{Repos: []string{"/repos/nope"}}, "/repos/r0"},
	} {
		opts := fixed(home)
		opts.Filter = tc.filter
		_, err := Run(context.Background(), opts)
		if !usage.Is(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("filter %+v: %v, want a usage error naming %q", tc.filter, err, tc.want)
		}
	}
	opts := fixed(home)
	opts.Out = t.TempDir()
	os.WriteFile(filepath.Join(opts.Out, "x"), nil, 0o644)
	if _, err := Run(context.Background(), opts); !usage.Is(err) {
		t.Errorf("a non-empty --out: %v, want a usage error", err)
	}
}

func TestPlanValidatesAgainstItsSchema(t *testing.T) {
	res := run(t, fixed(plantedStore(t, false)))
	raw := readFile(t, filepath.Join(res.OutDir, PlanFile))
	sch := validatePlan(t, raw)
	// The schema is not vacuous: a plan without a target, or with an
	// unknown stage, is refused.
	for name, mutate := range map[string]func(m map[string]any){
		"no target":     func(m map[string]any) { delete(m, "target_stage") },
		"unknown stage": func(m map[string]any) { m["data_criteria"].(map[string]any)["stages"] = []any{"review"} },
		"rate over 1":   func(m map[string]any) { m["evidence"].(map[string]any)["success"].(map[string]any)["value"] = 1.5 },
		"no success interval": func(m map[string]any) {
			m["evidence"].(map[string]any)["success"].(map[string]any)["ci"] = nil
		},
	} {
		var m map[string]any
		json.Unmarshal(raw, &m)
		mutate(m)
		b, _ := json.Marshal(m)
		bad, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if sch.Validate(bad) == nil {
			t.Errorf("%s: validated, want refused", name)
		}
	}
}

// validatePlan checks raw against plan.schema.json and returns the
// compiled schema.
func validatePlan(t *testing.T, raw []byte) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(PlanSchema))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("plan.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("plan.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("plan.json does not validate: %v", err)
	}
	return sch
}

// TestHTMLIsSelfContainedAndWellFormed: each page shows what its
// report.md shows, with one figure per chart with data (checkPage).
func TestHTMLIsSelfContainedAndWellFormed(t *testing.T) {
	for name, home := range map[string]string{"planted": plantedStore(t, true), "null": nullStore(t), "one repository": oneRepoStore(t)} {
		t.Run(name, func(t *testing.T) {
			res := run(t, fixed(home))
			var want []string
			for _, id := range Charts {
				if res.Report.hasData(id) {
					want = append(want, id)
				}
			}
			// A chart without data is left out, not drawn as a blank frame.
			if lift := slices.Contains(want, chartLift); lift != (name == "planted") {
				t.Errorf("the oracle lift chart is there: %v, want it only where there are oracle evals", lift)
			}
			checkPage(t, readFile(t, filepath.Join(res.OutDir, ReportHTML)), readFile(t, filepath.Join(res.OutDir, ReportMarkdown)), want)
		})
	}
}

func TestNarrativeOverRealHTTP(t *testing.T) {
	home := plantedStore(t, false)
	srv := fakellm.New(t, fakellm.Reply{Text: "Scope is the stage to train.\n\nIts wrong outputs go with failure; 99.9 is not a figure of the report."})
	opts := fixed(home)
	opts.NoLLM = false
	opts.Config.Models.BaseURL, opts.Config.Models.Reasoning = srv.OllamaURL(), "qwen3:4b"
	res := run(t, opts)
	md := string(readFile(t, filepath.Join(res.OutDir, ReportMarkdown)))
	head, narrative, ok := strings.Cut(md, "## Narrative (reasoning model)\n")
	if !ok || !strings.Contains(narrative, "Scope is the stage to train.") || !strings.Contains(narrative, "Written by qwen3:4b") ||
		!strings.Contains(narrative, "do not hold: 99.9") {
		t.Fatalf("narrative section %q: want the model's text, attributed, with its unsupported number flagged", narrative)
	}
	// The narrative changes no figure: everything but it is the computed
	// report's text (the byline alone says whether a narrative was asked for).
	computed := string(readFile(t, filepath.Join(run(t, fixed(plantedStore(t, false))).OutDir, ReportMarkdown)))
	if strip(head) != strip(computed) {
		t.Errorf("the report with a narrative differs from the computed one outside the narrative:\n%s\n---\n%s", head, computed)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !strings.Contains(reqs[0].Messages[len(reqs[0].Messages)-1].Content, "**Train scope**") {
		t.Fatalf("requests %+v: want one, carrying the computed findings", reqs)
	}
	calls := storetest.Rows(t, home, kb.Raw, `SELECT c.call_type, c.stage_name, c.model, t.mode, t.execute_model FROM retrieval_llm_calls c
		JOIN task_runs t ON t.task_id = c.task_id`)
	if len(calls) != 1 || calls[0] != "train_plan_narrative\ttrain_plan\tqwen3:4b\ttrain_plan\tqwen3:4b" {
		t.Errorf("logged calls %v: want the narrative call under the train_plan run", calls)
	}
}

// strip drops the byline, the one line that says how the narrative went.
func strip(md string) string {
	lines := strings.Split(strings.TrimSpace(md), "\n")
	var out []string
	for _, l := range lines {
		if !strings.HasPrefix(l, "`cra train-plan` run") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
