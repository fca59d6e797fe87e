package schema

import (
	"strings"
	"testing"
)

func TestPlanCheck(t *testing.T) {
	exists := func(p string) bool { return p == "a.py" || p == "b.py" }
	plan := func(mut func(*PlanArtifact)) PlanArtifact {
		p := PlanArtifact{TaskSummary: "t", ExecutionOrder: []string{"b.py", "a.py", "c.py"}, AffectedFiles: []PlanFile{
			{Path: "a.py", Role: "modify", Changes: []PlanChange{{Symbol: "f", Action: "modify", DependsOn: []string{"b.py:g"}}}},
			{Path: "b.py", Role: "modify", Changes: []PlanChange{{Symbol: "g", Action: "modify", DependsOn: []string{"a.py:f"}}}}, // mutual: fine
			{Path: "c.py", Role: "create", Changes: []PlanChange{{Symbol: "<module>", Action: "add"}}},
		}}
		if mut != nil {
			mut(&p)
		}
		return p
	}
	for _, tc := range []struct {
		name string
		p    PlanArtifact
		want string
	}{
		{"valid", plan(nil), ""},
		{"modify a missing file", plan(func(p *PlanArtifact) { p.AffectedFiles[0].Path, p.ExecutionOrder[1] = "z.py", "z.py" }), "does not exist"},
		{"create an existing file", plan(func(p *PlanArtifact) { p.AffectedFiles[2].Path = "a.py"; p.ExecutionOrder = p.ExecutionOrder[:2] }), "exists already"},
		{"order leaves a file out", plan(func(p *PlanArtifact) { p.ExecutionOrder = p.ExecutionOrder[:2] }), "leaves out c.py"},
		{"unknown dependency", plan(func(p *PlanArtifact) { p.AffectedFiles[0].Changes[0].DependsOn = []string{"x.py:h"} }), `"x.py:h"`},
		{"bad role", plan(func(p *PlanArtifact) { p.AffectedFiles[0].Role = "rewrite" }), "unknown role"},
	} {
		err := tc.p.Check(exists)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
