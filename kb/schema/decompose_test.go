package schema

import (
	"reflect"
	"testing"
)

// One part over every affected file; one step per file in execution order,
// depending on the earlier steps its changes depend on (a later one would
// make a cycle); both validate.
func TestDecompose(t *testing.T) {
	plan := PlanArtifact{TaskSummary: "Let add sum", Rationale: "r", ExecutionOrder: []string{"util.py", "calc.py"},
		AffectedFiles: []PlanFile{
			{Path: "calc.py", Role: "modify", Changes: []PlanChange{{Symbol: "add", Action: "modify", Description: "modify function add",
				DependsOn: []string{"util.py:helper"}}}},
			{Path: "util.py", Role: "modify", Changes: []PlanChange{{Symbol: "helper", Action: "modify", Description: "modify function helper",
				DependsOn: []string{"calc.py:add"}}}},
			{Path: "new.py", Role: "create", Changes: []PlanChange{{Symbol: "<module>", Action: "add", Description: "add module"}}},
		}}
	meta, part := Decompose("Let add sum", plan)
	if err := meta.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := part.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := meta.Parts[0].AffectedFiles; !reflect.DeepEqual(got, []string{"util.py", "calc.py", "new.py"}) {
		t.Errorf("part files %q", got)
	}
	want := []PlanStep{
		{ID: "s1", Description: "Modify util.py: modify function helper", TargetFiles: []string{"util.py"}, TargetSymbols: []string{"helper"}, DependsOn: []string{}},
		{ID: "s2", Description: "Modify calc.py: modify function add", TargetFiles: []string{"calc.py"}, TargetSymbols: []string{"add"}, DependsOn: []string{"s1"}},
		{ID: "s3", Description: "Create new.py: add module", TargetFiles: []string{"new.py"}, TargetSymbols: []string{"<module>"}, DependsOn: []string{}},
	}
	if !reflect.DeepEqual(part.Steps, want) {
		t.Errorf("steps\n%+v\nwant\n%+v", part.Steps, want)
	}
}
