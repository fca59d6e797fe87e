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

// keep is the answer's kept step id: its id alone.
func keep(id string) AdjustedStep { return AdjustedStep{PlanStep: PlanStep{ID: id}, Keep: true} }

// left are the steps an adjustment's tests have remaining after s1.
var left = []PlanStep{step("s3", "s1"), step("s4", "s3")}

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
		{"adjustment: valid, on a done step", PlanAdjustment{RevisedSteps: []AdjustedStep{Written(step("s3", "s1")), Written(step("s4", "s3"))}}.Validate([]string{"s1", "s2"}, nil), ""},
		{"adjustment: nothing left", PlanAdjustment{}.Validate([]string{"s1"}, left), ""},
		{"adjustment: revises a done step", PlanAdjustment{RevisedSteps: []AdjustedStep{Written(step("s1"))}}.Validate([]string{"s1"}, left), "done already: it cannot be revised"},
		{"adjustment: unknown dependency", PlanAdjustment{RevisedSteps: []AdjustedStep{Written(step("s3", "s9"))}}.Validate([]string{"s1"}, left), `depends on "s9"`},
		{"adjustment: cycle", PlanAdjustment{RevisedSteps: []AdjustedStep{Written(step("s3", "s4")), Written(step("s4", "s3"))}}.Validate(nil, nil), "cycle"},
		{"adjustment: keeps a step left", PlanAdjustment{RevisedSteps: []AdjustedStep{keep("s3"), Written(step("s5", "s3"))}}.Validate([]string{"s1"}, left), ""},
		{"adjustment: keeps a step restated as planned", PlanAdjustment{RevisedSteps: []AdjustedStep{Kept(step("s3", "s1"))}}.Validate([]string{"s1"}, left), ""},
		{"adjustment: keeps an unknown step", PlanAdjustment{RevisedSteps: []AdjustedStep{keep("s9")}}.Validate([]string{"s1"}, left), `keeps step "s9", which is not a step left (left: s3, s4)`},
		{"adjustment: keeps a done step", PlanAdjustment{RevisedSteps: []AdjustedStep{keep("s1")}}.Validate([]string{"s1"}, left), "done already: it cannot be kept"},
		{"adjustment: kept and revised in one entry", PlanAdjustment{RevisedSteps: []AdjustedStep{{PlanStep: PlanStep{ID: "s3", TargetFiles: []string{"b.py"}}, Keep: true}}}.Validate([]string{"s1"}, left), "both kept and revised"},
		{"adjustment: kept and revised in two entries", PlanAdjustment{RevisedSteps: []AdjustedStep{keep("s3"), Written(step("s3", "s1"))}}.Validate([]string{"s1"}, left), "both kept and revised"},
		{"adjustment: a kept step's dependency dropped", PlanAdjustment{RevisedSteps: []AdjustedStep{keep("s4")}}.Validate([]string{"s1"}, left), `"s4" depends on "s3"`},
	} {
		switch {
		case tc.want == "" && tc.err != nil:
			t.Errorf("%s: %v, want valid", tc.name, tc.err)
		case tc.want != "" && (tc.err == nil || !strings.Contains(tc.err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error with %q", tc.name, tc.err, tc.want)
		}
	}
}

// The JSON field names are the ones the plan prompts ask models for (and
// stored sessions and training data hold), and a value survives a round
// trip unchanged.
func TestPlanPassesJSONRoundTrip(t *testing.T) {
	meta := MetaPlan{TaskSummary: "t", Parts: []MetaPart{part("p1"), part("p2", "p1")}, Rationale: "r"}
	partPlan := PartPlan{PartID: "p1", TaskSummary: "t", Steps: []PlanStep{step("s1"), step("s2", "s1")}, Rationale: "r"}
	adj := PlanAdjustment{RevisedSteps: []AdjustedStep{Written(step("s3", "s1")), Kept(step("s4", "s3"))}, Rationale: "r", ChangesMade: []string{"split s2"}}
	for name, tc := range map[string]struct {
		v      any
		fields []string
	}{
		"meta":       {meta, []string{`"task_summary"`, `"parts"`, `"affected_files"`, `"depends_on"`, `"rationale"`}},
		"part":       {partPlan, []string{`"part_id"`, `"steps"`, `"target_files"`, `"target_symbols"`}},
		"adjustment": {adj, []string{`"revised_steps"`, `"changes_made"`, `"keep":true`}},
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

// A kept step reaches the steps as the plan gave it, in the answer's
// order; an unchanged written step becomes a kept one, a changed one not.
func TestAdjustmentKeeps(t *testing.T) {
	added := step("s5", "s3")
	got, err := PlanAdjustment{RevisedSteps: []AdjustedStep{Written(added), keep("s4"), keep("s3")}}.Resolve([]string{"s1"}, left)
	if err != nil {
		t.Fatal(err)
	}
	if want := []PlanStep{added, left[1], left[0]}; !reflect.DeepEqual(got.Steps(), want) {
		t.Errorf("steps %+v, want %+v", got.Steps(), want)
	}
	revised := step("s4", "s3")
	revised.TargetFiles = []string{"b.py"}
	canon := PlanAdjustment{RevisedSteps: []AdjustedStep{Written(step("s3", "s1")), Written(revised)}}.KeepUnchanged(left)
	if want := []AdjustedStep{Kept(left[0]), Written(revised)}; !reflect.DeepEqual(canon.RevisedSteps, want) {
		t.Errorf("KeepUnchanged: %+v, want %+v", canon.RevisedSteps, want)
	}
}
