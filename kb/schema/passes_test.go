package schema

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func step(id string, deps ...string) PlanStep {
	return PlanStep{ID: id, Description: "do " + id, TargetFiles: []string{"a.py"}, TargetSymbols: []string{}, DependsOn: deps}
}

func part(id string, deps ...string) MetaPart {
	return MetaPart{ID: id, Description: "part " + id, AffectedFiles: []string{"a.py"}, DependsOn: deps}
}

func TestPlanPassesValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string // "" when valid
	}{
		{"meta: valid", MetaPlan{Parts: []MetaPart{part("p1"), part("p2", "p1")}}.Validate(), ""},
		{"meta: no part", MetaPlan{}.Validate(), "no part"},
		{"meta: duplicate id", MetaPlan{Parts: []MetaPart{part("p1"), part("p1")}}.Validate(), `"p1" is used twice`},
		{"meta: empty id", MetaPlan{Parts: []MetaPart{part(" ")}}.Validate(), "has no id"},
		{"meta: unknown dependency", MetaPlan{Parts: []MetaPart{part("p1", "p9")}}.Validate(), `depends on "p9"`},
		{"meta: cycle", MetaPlan{Parts: []MetaPart{part("p1", "p3"), part("p2", "p1"), part("p3", "p2")}}.Validate(), "p1 → p3 → p2 → p1"},
		{"meta: self", MetaPlan{Parts: []MetaPart{part("p1", "p1")}}.Validate(), "p1 → p1"},
		{"part: valid", PartPlan{PartID: "p1", Steps: []PlanStep{step("s1"), step("s2", "s1")}}.Validate(), ""},
		{"part: no part id", PartPlan{Steps: []PlanStep{step("s1")}}.Validate(), "no part_id"},
		{"part: no step", PartPlan{PartID: "p1"}.Validate(), "no step"},
		{"part: duplicate", PartPlan{PartID: "p1", Steps: []PlanStep{step("s1"), step("s1")}}.Validate(), "used twice"},
		{"part: unknown dependency", PartPlan{PartID: "p1", Steps: []PlanStep{step("s1", "s0")}}.Validate(), `depends on "s0"`},
		{"part: cycle", PartPlan{PartID: "p1", Steps: []PlanStep{step("s1", "s2"), step("s2", "s1")}}.Validate(), "cycle"},
		{"adjustment: valid, on a done step", PlanAdjustment{RevisedSteps: []PlanStep{step("s3", "s1"), step("s4", "s3")}}.Validate("s1", "s2"), ""},
		{"adjustment: nothing left", PlanAdjustment{}.Validate("s1"), ""},
		{"adjustment: revises a done step", PlanAdjustment{RevisedSteps: []PlanStep{step("s1")}}.Validate("s1"), "done already"},
		{"adjustment: unknown dependency", PlanAdjustment{RevisedSteps: []PlanStep{step("s3", "s9")}}.Validate("s1"), `depends on "s9"`},
		{"adjustment: cycle", PlanAdjustment{RevisedSteps: []PlanStep{step("s3", "s4"), step("s4", "s3")}}.Validate(), "cycle"},
	} {
		switch {
		case tc.want == "" && tc.err != nil:
			t.Errorf("%s: %v, want valid", tc.name, tc.err)
		case tc.want != "" && (tc.err == nil || !strings.Contains(tc.err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error with %q", tc.name, tc.err, tc.want)
		}
	}
}

// The JSON field names are the ones spec WI-2 names, and a value survives
// a round trip unchanged.
func TestPlanPassesJSONRoundTrip(t *testing.T) {
	meta := MetaPlan{TaskSummary: "t", Parts: []MetaPart{part("p1"), part("p2", "p1")}, Rationale: "r"}
	partPlan := PartPlan{PartID: "p1", TaskSummary: "t", Steps: []PlanStep{step("s1"), step("s2", "s1")}, Rationale: "r"}
	adj := PlanAdjustment{RevisedSteps: []PlanStep{step("s3", "s1")}, Rationale: "r", ChangesMade: []string{"split s2"}}
	for name, tc := range map[string]struct {
		v      any
		fields []string
	}{
		"meta":       {meta, []string{`"task_summary"`, `"parts"`, `"affected_files"`, `"depends_on"`, `"rationale"`}},
		"part":       {partPlan, []string{`"part_id"`, `"steps"`, `"target_files"`, `"target_symbols"`}},
		"adjustment": {adj, []string{`"revised_steps"`, `"changes_made"`}},
	} {
		b, err := json.Marshal(tc.v)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range tc.fields {
			if !strings.Contains(string(b), f) {
				t.Errorf("%s: %s lacks %s", name, b, f)
			}
		}
	}
	var m MetaPlan
	b, _ := json.Marshal(meta)
	if err := json.Unmarshal(b, &m); err != nil || !reflect.DeepEqual(m, meta) {
		t.Errorf("meta round trip: %+v (%v)", m, err)
	}
	var p PartPlan
	b, _ = json.Marshal(partPlan)
	if err := json.Unmarshal(b, &p); err != nil || !reflect.DeepEqual(p, partPlan) {
		t.Errorf("part round trip: %+v (%v)", p, err)
	}
	var a PlanAdjustment
	b, _ = json.Marshal(adj)
	if err := json.Unmarshal(b, &a); err != nil || !reflect.DeepEqual(a, adj) {
		t.Errorf("adjustment round trip: %+v (%v)", a, err)
	}
}
