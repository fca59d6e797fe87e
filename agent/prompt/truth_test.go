package prompt

import (
	"testing"

	"github.com/cra-dev/cra/kb/schema"
)

// The part plan of some of a task's files keeps their steps and drops the
// dependencies on steps it left out, so it validates; a merged branch's
// task (no part plan of its own) gets its plan's steps for those files.
func TestPartPlanFor(t *testing.T) {
	steps := []schema.PlanStep{
		{ID: "s1", Description: "Modify calc.py", TargetFiles: []string{"calc.py"}, TargetSymbols: []string{}, DependsOn: []string{}},
		{ID: "s2", Description: "Modify tests/test_calc.py", TargetFiles: []string{"tests/test_calc.py"}, TargetSymbols: []string{}, DependsOn: []string{"s1"}},
	}
	tr := Truth{PartPlan: schema.PartPlan{PartID: "p1", Steps: steps}}
	pp := tr.PartPlanFor([]string{"tests/test_calc.py"})
	if len(pp.Steps) != 1 || pp.Steps[0].ID != "s2" || len(pp.Steps[0].DependsOn) != 0 {
		t.Errorf("steps %+v", pp.Steps)
	}
	if err := pp.Validate(); err != nil {
		t.Error(err)
	}
	if all := tr.PartPlanFor(nil); len(all.Steps) != 2 || all.Steps[1].DependsOn[0] != "s1" {
		t.Errorf("every file: %+v", all.Steps)
	}
	merged := Truth{Plan: schema.PlanArtifact{TaskSummary: "t", ExecutionOrder: []string{"a.py", "b.py"}, AffectedFiles: []schema.PlanFile{
		{Path: "a.py", Role: "modify", Changes: []schema.PlanChange{{Symbol: "f", Action: "modify", Description: "modify f"}}},
		{Path: "b.py", Role: "create", Changes: []schema.PlanChange{{Symbol: "<module>", Action: "add", Description: "add module"}}}}}}
	if pp := merged.PartPlanFor([]string{"b.py"}); len(pp.Steps) != 1 || pp.Steps[0].TargetFiles[0] != "b.py" {
		t.Errorf("a merged branch's part: %+v", pp.Steps)
	}
}
