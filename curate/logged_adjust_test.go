package curate

import (
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/kb/schema"
)

// An adjustment pair's sides are written as a model keeping what it does
// not change writes them: the steps as planned all kept by id (rejected),
// and the answer that then succeeded with each unchanged step kept by id
// rather than its files and symbols restated (chosen). An answer that
// restates every step unchanged changes nothing: no pair.
func TestAdjustmentPairsKeepUnchangedSteps(t *testing.T) {
	plan := schema.PartPlan{PartID: "p1", Steps: []schema.PlanStep{
		{ID: "s1", Description: "Fix add", TargetFiles: []string{"calc.py"}, TargetSymbols: []string{"add"}},
		{ID: "s2", Description: "Document double", TargetFiles: []string{"calc.py"}, TargetSymbols: []string{"double"}},
		{ID: "s3", Description: "Test double", TargetFiles: []string{"test_calc.py"}, TargetSymbols: []string{"test_double"}, DependsOn: []string{"s2"}},
	}}
	revised := schema.PlanStep{ID: "s2", Description: "Give double a docstring saying it returns twice x", TargetFiles: []string{"calc.py"}, TargetSymbols: []string{"double"}}
	// The model writes every step out, s3 as the plan gave it.
	rewrite := prompt.RenderAdjustment(schema.PlanAdjustment{RevisedSteps: []schema.AdjustedStep{schema.Written(revised), schema.Written(plan.Steps[2])},
		Rationale: "name the docstring", ChangesMade: []string{"s2: name the docstring"}})
	restate := prompt.RenderAdjustment(schema.PlanAdjustment{RevisedSteps: []schema.AdjustedStep{schema.Written(plan.Steps[2])}, Rationale: "on"})
	passed := &loggedAttempt{attempt: 1, applied: true, testsPassed: true}
	step := func(id string) loggedPass {
		return loggedPass{taskID: "r:impl:p1:" + id, passType: "step_implement", partID: "p1", stepID: id, success: true, attempt: passed}
	}
	adjust := func(after string, id int64, answer string) loggedPass {
		return loggedPass{taskID: "r:adjust:p1:after_" + after, passType: "adjustment", partID: "p1", stepID: after, success: true,
			calls: map[string]*loggedCall{"adjustment": {id: id, system: "sys", user: "user", completion: answer}}}
	}
	r := loggedRun{id: "r", status: "complete", passes: []loggedPass{
		{taskID: "r:part_plan:p1", passType: schema.StagePartPlan, partID: "p1", success: true,
			calls: map[string]*loggedCall{schema.StagePartPlan: {id: 1, completion: prompt.RenderPartPlan(plan)}}},
		step("s1"), adjust("s1", 2, rewrite), step("s2"), adjust("s2", 3, restate), step("s3"),
	}}
	var pairs []example
	r.adjustmentPairs(func(e example) { pairs = append(pairs, e) })
	if len(pairs) != 1 {
		t.Fatalf("%d pairs, want 1 (the rewrite's): %+v", len(pairs), pairs)
	}
	p := pairs[0]
	if p.evidence["call_id"] != int64(2) {
		t.Errorf("the pair is of call %v, want 2", p.evidence["call_id"])
	}
	asPlanned := prompt.RenderAdjustment(schema.PlanAdjustment{RevisedSteps: []schema.AdjustedStep{schema.Kept(plan.Steps[1]), schema.Kept(plan.Steps[2])}})
	if p.rejected != asPlanned {
		t.Errorf("rejected:\n%s\nwant the steps left, kept:\n%s", p.rejected, asPlanned)
	}
	chosen := prompt.RenderAdjustment(schema.PlanAdjustment{RevisedSteps: []schema.AdjustedStep{schema.Written(revised), schema.Kept(plan.Steps[2])},
		Rationale: "name the docstring", ChangesMade: []string{"s2: name the docstring"}})
	if p.chosen != chosen {
		t.Errorf("chosen:\n%s\nwant s2 revised and s3 kept:\n%s", p.chosen, chosen)
	}
	if strings.Contains(p.chosen, "test_calc.py") {
		t.Errorf("the chosen answer restates the kept step's files:\n%s", p.chosen)
	}
	// Both sides parse against the prompt's steps.
	for side, text := range map[string]string{"chosen": p.chosen, "rejected": p.rejected} {
		if _, err := prompt.ParseAdjustment(text, []string{"s1"}, plan.Steps[1:]); err != nil {
			t.Errorf("%s does not parse: %v", side, err)
		}
	}
}
