package analysis

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/cra-dev/cra/kb/schema"
)

// askStore is the planted store with an ask eval beside it: two
// diagnostic questions (one classified right, both retrieved), one
// exploratory question the model failed on, in the repository /r1 the
// pipeline's evals never held out.
func askStore(t *testing.T) string {
	s := newStore(t)
	plain := s.evalRun("nightly", nil, "validation", 8)
	for _, p := range plantedTasks() {
		s.task(plain, p.id, p.repo, p.correct(), !p.failed, p.metrics())
	}
	var ask int64
	if err := s.raw.DB.QueryRow(`INSERT INTO eval_runs (name, oracle, split, repos, stages, sample, seed, models, cra_version,
		started_at, finished_at, status) VALUES ('questions', [], 'ask', [], ?, 5, 1, '{}', 'test',
		TIMESTAMPTZ '2026-03-09 09:00:00+00', TIMESTAMPTZ '2026-03-09 10:00:00+00', 'partial') RETURNING id`, schema.AskStages).Scan(&ask); err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct {
		id, kind, mode, status string
		scores                 map[string]float64 // stage/metric → value
	}{
		{"ask/diagnostic/a", "diagnostic", "diagnostic", "scored", map[string]float64{"ask_classify/correct": 1, "ask_retrieval/recall_at_5": 1, "ask_answer/recall_at_5": 1, "ask_answer/answered": 1}},
		{"ask/diagnostic/b", "diagnostic", "diagnostic", "scored", map[string]float64{"ask_classify/correct": 0, "ask_retrieval/recall_at_5": 0.5, "ask_answer/recall_at_5": 0, "ask_answer/answered": 1}},
		{"ask/exploratory/c", "exploratory", "exploratory", "error", nil},
	} {
		s.exec(`INSERT INTO ask_questions (eval_run_id, question_id, kind, mode, repo_path, question, expected_files, expected_symbols, expected_lines)
			VALUES (?, ?, ?, ?, '/r1', 'q', ['a.py'], [], [])`, ask, q.id, q.kind, q.mode)
		s.exec(`INSERT INTO eval_tasks (eval_run_id, task_id, repo_path, status, model_ms, elapsed_ms, finished_at)
			VALUES (?, ?, '/r1', ?, 1, 1, now())`, ask, q.id, q.status)
		for k, v := range q.scores {
			stage, metric, _ := strings.Cut(k, "/")
			s.exec(`INSERT INTO eval_results (eval_run_id, task_id, stage, metric, value) VALUES (?, ?, ?, ?, ?)`, ask, q.id, stage, metric, v)
		}
	}
	s.close()
	return s.home
}

// train-plan reports an ask eval's scores per kind, and nowhere else: not
// among the stages, the eval runs or the held-out repositories. plan.json
// carries them and validates.
func TestTrainPlanReportsAskEvals(t *testing.T) {
	res := run(t, fixed(askStore(t)))
	e := res.Evidence
	if len(e.AskEvals) != 1 || e.AskEvals[0].Name != "questions" || e.AskEvals[0].Questions != 3 || e.AskEvals[0].Errors != 1 {
		t.Fatalf("ask evals: %+v", e.AskEvals)
	}
	for _, r := range e.EvalRuns {
		if r.Name == "questions" {
			t.Errorf("the ask eval is among the eval runs: %+v", r)
		}
	}
	for _, s := range e.Stages {
		if strings.HasPrefix(s.Stage, "ask_") {
			t.Errorf("an ask stage among the pipeline's: %s", s.Stage)
		}
	}
	md := string(readFile(t, filepath.Join(res.OutDir, ReportMarkdown)))
	_, asks, ok := strings.Cut(md, "## Questions (cra ask --eval)")
	if !ok {
		t.Fatalf("no ask section:\n%s", md)
	}
	for _, want := range []string{"### questions", "Partial, started 2026-03-09 09:00: 3 questions, 2 scored.",
		"| diagnostic | diagnostic | 2 | 0.50 (n 2) | 0.75 (n 2) | 0.50 (n 2) | — | 1.00 (n 2) |",
		"| exploratory | exploratory | 1 (1 not answered) | — | — | — | — | — |"} {
		if !strings.Contains(asks, want) {
			t.Errorf("the ask section lacks %q:\n%s", want, asks)
		}
	}
	raw := readFile(t, filepath.Join(res.OutDir, PlanFile))
	sch := validatePlan(t, raw)
	var m map[string]any
	json.Unmarshal(raw, &m)
	m["evidence"].(map[string]any)["ask_evals"].([]any)[0].(map[string]any)["kinds"].([]any)[0].(map[string]any)["kind"] = "trivia"
	bad, _ := json.Marshal(m)
	v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(bad))
	if sch.Validate(v) == nil {
		t.Error("a kind that is not one validated")
	}
}
