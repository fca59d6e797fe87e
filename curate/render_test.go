package curate

import (
	"encoding/json"
	"testing"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/kb/schema"
)

// RenderForStudent renders what has something to teach and fits, and
// otherwise says why it is left out: nothing to teach before anything
// else (an empty target over the budget is empty), then ground truth that
// does not render, then the budget.
func TestRenderForStudent(t *testing.T) {
	wide, _ := llm.NewBudget(config.Default())
	narrow := wide
	narrow.ContextWindow = 10
	task := func(targets map[string]any) *Task {
		tk := &Task{ID: "t1", Task: "fix the parser", Targets: map[string]json.RawMessage{}}
		for stage, v := range targets {
			js, _ := json.Marshal(v)
			tk.Targets[stage] = js
		}
		return tk
	}
	relevant := schema.ScopeTarget{Candidates: []schema.ScopeCandidate{{Path: "a.py", Relevant: true}, {Path: "b.py"}}}
	parts := schema.PartPlan{PartID: "p1", Steps: []schema.PlanStep{{ID: "s1", Description: "x", TargetFiles: []string{"a.py"}}}}
	for _, tc := range []struct {
		name    string
		t       *Task
		stage   string
		budget  llm.Budget
		dropped string
		answer  string
	}{
		{"scope that fits", task(map[string]any{schema.StageScope: relevant}), schema.StageScope, wide, "",
			prompt.RenderScope(prompt.ScopeResponse{Relevant: []string{"a.py"}})},
		{"scope over the budget", task(map[string]any{schema.StageScope: relevant}), schema.StageScope, narrow, DropOverBudget, ""},
		{"scope without candidates", task(map[string]any{schema.StageScope: schema.ScopeTarget{}}), schema.StageScope, wide, DropEmpty, ""},
		{"scope without candidates, over the budget", task(map[string]any{schema.StageScope: schema.ScopeTarget{}}), schema.StageScope, narrow, DropEmpty, ""},
		{"scope with nothing relevant", task(map[string]any{schema.StageScope: schema.ScopeTarget{Candidates: []schema.ScopeCandidate{{Path: "b.py"}}}}),
			schema.StageScope, wide, DropTrivial, ""},
		{"meta plan that does not decode", task(map[string]any{schema.StagePartPlan: parts, schema.StageMetaPlan: "not a plan"}),
			schema.StageMetaPlan, wide, DropRenderFailure, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex, dropped := RenderForStudent(tc.t, tc.stage, tc.budget)
			if dropped != tc.dropped {
				t.Fatalf("dropped %q, want %q", dropped, tc.dropped)
			}
			if dropped != "" {
				if ex != (StudentExample{}) {
					t.Errorf("a target left out came with an example: %+v", ex)
				}
				return
			}
			if ex.System == "" || ex.User == "" || ex.Answer != tc.answer {
				t.Errorf("example %+v, want a prompt and the answer %q", ex, tc.answer)
			}
		})
	}
}
