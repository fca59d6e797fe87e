package prompt

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cra-dev/cra/internal/golden"
	"github.com/cra-dev/cra/kb/schema"
)

func TestPromptsGolden(t *testing.T) {
	task := "Let Store.get return a default value\n\nCallers no longer check for None."
	prompts := map[string]Prompt{
		"task_analysis": TaskAnalysisPrompt(task),
		"scope": ScopePrompt(ScopeInput{Task: task, Candidates: []ScopeCandidate{
			{Path: "app/store.py", Tier: 1, Reason: "defines Store", Symbols: []string{"Store", "make_store"}},
			{Path: "app/api.py", Tier: 2, Reason: "imports app/store.py"},
		}}),
		"precision": PrecisionPrompt(PrecisionInput{Task: task, Symbols: []PrecisionSymbol{
			{File: "app/store.py", QualifiedName: "Store.get", Kind: "method", Signature: "    def get(self, key):"},
		}}),
		"plan": PlanPrompt(PlanAtomic, PlanInput{Task: task, Files: []ContextFile{
			{Path: "app/store.py", Symbols: []ContextSymbol{
				{Tier: "primary", Text: "    def get(self, key):\n        if key not in self.data:\n            return None\n\n        return self.data[key]"},
				{Tier: "supporting", Text: "def put(self, key, value):\n    Store value under key."},
			}, Rationale: []string{"line 3: # None, not KeyError: callers test for it"},
				Notes: []string{"changed with app/api.py in 4 earlier commits", "commit 1a2b3c4 (2024-03-01): Store: keep keys ordered"}},
			{Path: "app/api.py"},
		}}),
		"meta_plan": PlanPrompt(PlanMeta, PlanInput{Task: task}),
		"part_plan": PlanPrompt(PlanPart, PlanInput{Task: task, Files: []ContextFile{{Path: "app/store.py", Symbols: []ContextSymbol{{Tier: "type_context", Text: "class Store:"}}}},
			Part: &schema.MetaPart{ID: "p1", Description: "Give Store.get a default", AffectedFiles: []string{"app/store.py"}}}),
		"adjustment": PlanPrompt(PlanAdjustment, PlanInput{Task: task,
			Done: []schema.PlanStep{{ID: "s1", Description: "Add the default parameter"}},
			Remaining: []schema.PlanStep{
				{ID: "s2", Description: "Update the callers", TargetFiles: []string{"app/api.py", "app/cli.py"}, TargetSymbols: []string{"handler", "main"}, DependsOn: []string{"s1"}},
				{ID: "s3", Description: "Test the default", TargetFiles: []string{"tests/test_store.py"}},
			},
			TestResults:  "FAILED tests/test_api.py::test_missing - TypeError",
			PriorChanges: "--- a/app/store.py\n+++ b/app/store.py\n-    def get(self, key):\n+    def get(self, key, default=None):"}),
		"enrich": EnrichPrompt(EnrichInput{Path: "app/store.py", Language: "python", Symbols: []string{"Store"},
			Content: "class Store:\n    pass"}),
		"implement": ImplementPrompt(ImplementInput{Task: task, Plan: "modify Store.get", Files: []File{
			{Path: "app/store.py", Content: "class Store:\n    def get(self, key):\n        return key"},
		}}),
		"implement_step": ImplementPrompt(ImplementInput{Task: task, Plan: "s1: give get a default\ns2: update the callers",
			Step:         &schema.PlanStep{ID: "s1", Description: "Give Store.get a default parameter", TargetFiles: []string{"app/store.py"}, TargetSymbols: []string{"Store.get"}},
			Context:      []ContextFile{{Path: "app/api.py", Symbols: []ContextSymbol{{Tier: "supporting", Text: "def handler(request):"}}}},
			Files:        []File{{Path: "app/store.py", Content: "class Store:\n    def get(self, key):\n        return key\n"}},
			PriorChanges: "--- a/app/util.py\n+++ b/app/util.py\n-x = 1\n+x = 2",
			Failure:      "FAILED tests/test_store.py::test_default - TypeError: get() takes 2 positional arguments"}),
	}
	for name, p := range prompts {
		golden.Assert(t, filepath.Join("testdata", name+".golden"), []byte("SYSTEM:\n"+p.System+"\n\nUSER:\n"+p.User))
	}
}

// Every response the renderers write parses back to what was rendered.
func TestRenderParseRoundTrip(t *testing.T) {
	scope := ScopeResponse{Relevant: []string{"a.py", "b/c.py"}}
	if got, err := ParseScope(RenderScope(scope)); err != nil || !reflect.DeepEqual(got, scope) {
		t.Errorf("scope: %+v, %v", got, err)
	}
	prec := PrecisionResponse{Symbols: map[string]string{"a.py:f": schema.TierPrimary, "a.py:g": schema.TierSupporting, "a.py:h": schema.TierExcluded}}
	got, err := ParsePrecision(RenderPrecision(prec))
	delete(prec.Symbols, "a.py:h") // excluded symbols are left out
	if err != nil || !reflect.DeepEqual(got, prec) {
		t.Errorf("precision: %+v, %v", got, err)
	}
	plan := schema.PlanArtifact{TaskSummary: "s", Rationale: "r", ExecutionOrder: []string{"a.py"}, AffectedFiles: []schema.PlanFile{
		{Path: "a.py", Role: "modify", Changes: []schema.PlanChange{{Symbol: "f", Action: "rename", Description: "d", DependsOn: []string{"b.py:g"}, DependedBy: []string{}}}}}}
	if got, err := ParsePlan(RenderPlan(plan)); err != nil || !reflect.DeepEqual(got, plan) {
		t.Errorf("plan: %+v, %v", got, err)
	}
	meta := FileMetadata{Purpose: "p", Module: "m", Domain: "d", Concepts: []string{"c"}, PublicAPISurface: []string{}, ComplexityNotes: ""}
	if got, err := ParseEnrich(RenderEnrich(meta)); err != nil || !reflect.DeepEqual(got, meta) {
		t.Errorf("enrich: %+v, %v", got, err)
	}
	if _, err := ParseEnrich(`{"module": "m"}`); err == nil {
		t.Error("enrichment without a purpose parsed")
	}
	ta := TaskAnalysis{Summary: "s", Files: []string{"a.py"}, Symbols: []string{}, Keywords: []string{"k"}}
	if got, err := ParseTaskAnalysis(RenderTaskAnalysis(ta)); err != nil || !reflect.DeepEqual(got, ta) {
		t.Errorf("task analysis: %+v, %v", got, err)
	}
}

func TestEditsRoundTrip(t *testing.T) {
	cases := map[string][]schema.Edit{
		"plain":            {{File: "a.py", Search: "x = 1\n", Replace: "x = 2\n"}},
		"create":           {{File: "new.py", Search: "", Replace: "print(1)\n"}},
		"delete content":   {{File: "a.py", Search: "all\n", Replace: ""}},
		"no final newline": {{File: "a.py", Search: "x", Replace: "y"}},
		"delimiters inside": {{File: "t.html", Search: "<search>\n</search>\n<replacement>\nold\n",
			Replace: "</replacement>\n</edit>\nnew\n"}},
		"several files": {{File: "a.py", Search: "a\n", Replace: "b\n"}, {File: "dir/quote\"d.py", Search: "c\n", Replace: "d\n"}},
		"unicode":       {{File: "ü.py", Search: "naïve\n", Replace: "naive → fixed\n"}},
	}
	for name, edits := range cases {
		got, err := ParseEdits(RenderEdits(edits))
		if err != nil || !reflect.DeepEqual(got, edits) {
			t.Errorf("%s: %q, %v\nrendered:\n%s", name, got, err, RenderEdits(edits))
		}
	}
}

func TestParseErrors(t *testing.T) {
	for name, err := range map[string]error{
		"scope no json":      second(ParseScope("I think a.py")),
		"scope unknown key":  second(ParseScope(`{"files": ["a.py"]}`)),
		"precision tier":     second(ParsePrecision(`{"symbols": {"a.py:f": "important"}}`)),
		"plan role":          second(ParsePlan(`{"affected_files": [{"path": "a.py", "role": "edit", "changes": []}]}`)),
		"plan order":         second(ParsePlan(`{"affected_files": [], "execution_order": ["b.py"]}`)),
		"edits unterminated": second(ParseEdits("<edit file=\"a.py\">\n<search>\nx</search>\n")),
		"edits no block":     second(ParseEdits("just prose")),
	} {
		if err == nil {
			t.Errorf("%s: parsed without an error", name)
		}
	}
	// Prose and a fence around the JSON are tolerated.
	if r, err := ParseScope("Here:\n```json\n{\"relevant\": [\"a.py\"]}\n```"); err != nil || len(r.Relevant) != 1 {
		t.Errorf("fenced scope: %+v, %v", r, err)
	}
	if e, err := ParseEdits(""); err != nil || e != nil {
		t.Errorf("empty response: %v, %v", e, err)
	}
}

// The orchestrator's passes answer in their own schemas: each renders to
// text its parser reads back to the same value, and the parsers validate.
func TestPlanPassesRoundTripAndValidate(t *testing.T) {
	st := func(id string, deps ...string) schema.PlanStep {
		return schema.PlanStep{ID: id, Description: "change " + id, TargetFiles: []string{"a.py"}, TargetSymbols: []string{"f"}, DependsOn: deps}
	}
	meta := schema.MetaPlan{TaskSummary: "t", Rationale: "r", Parts: []schema.MetaPart{
		{ID: "p1", Description: "store", AffectedFiles: []string{"a.py"}},
		{ID: "p2", Description: "api", AffectedFiles: []string{"b.py"}, DependsOn: []string{"p1"}}}}
	if got, err := ParseMetaPlan(RenderMetaPlan(meta)); err != nil || got.Parts[0].DependsOn == nil || got.Parts[1].DependsOn[0] != "p1" || got.TaskSummary != "t" {
		t.Errorf("meta plan: %+v, %v", got, err)
	}
	part := schema.PartPlan{PartID: "p1", TaskSummary: "t", Rationale: "r", Steps: []schema.PlanStep{st("s1"), st("s2", "s1")}}
	if got, err := ParsePartPlan(RenderPartPlan(part)); err != nil || !reflect.DeepEqual(got, schema.PartPlan{PartID: "p1", TaskSummary: "t", Rationale: "r",
		Steps: []schema.PlanStep{{ID: "s1", Description: "change s1", TargetFiles: []string{"a.py"}, TargetSymbols: []string{"f"}, DependsOn: []string{}}, st("s2", "s1")}}) {
		t.Errorf("part plan: %+v, %v", got, err)
	}
	left := []schema.PlanStep{st("s2", "s1"), st("s4")}
	adj := schema.PlanAdjustment{RevisedSteps: []schema.AdjustedStep{schema.Written(st("s3", "s1")), schema.Kept(left[0])}, Rationale: "r", ChangesMade: []string{"s2 split"}}
	text := RenderAdjustment(adj)
	if got, err := ParseAdjustment(text, []string{"s1"}, left); err != nil || !reflect.DeepEqual(got, adj) {
		t.Errorf("adjustment: %+v, %v", got, err)
	}
	if !strings.Contains(text, "{\n      \"id\": \"s2\",\n      \"keep\": true\n    }") {
		t.Errorf("a kept step is not written as its id alone:\n%s", text)
	}
	for name, err := range map[string]error{
		"meta with a cycle":          second(ParseMetaPlan(`{"task_summary": "t", "parts": [{"id": "a", "description": "", "affected_files": [], "depends_on": ["b"]}, {"id": "b", "description": "", "affected_files": [], "depends_on": ["a"]}], "rationale": ""}`)),
		"meta in the plan schema":    second(ParseMetaPlan(RenderPlan(schema.PlanArtifact{TaskSummary: "t"}))),
		"part without steps":         second(ParsePartPlan(`{"part_id": "p1", "task_summary": "t", "steps": [], "rationale": ""}`)),
		"adjustment of a done step":  second(ParseAdjustment(RenderAdjustment(schema.PlanAdjustment{RevisedSteps: []schema.AdjustedStep{schema.Written(st("s1"))}}), []string{"s1"}, nil)),
		"adjustment unknown step id": second(ParseAdjustment(RenderAdjustment(schema.PlanAdjustment{RevisedSteps: []schema.AdjustedStep{schema.Written(st("s3", "s9"))}}), []string{"s1"}, nil)),
	} {
		if err == nil {
			t.Errorf("%s: parsed without an error", name)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// ParseAdjustment applies kept steps as the plan gave them and refuses a
// keep it cannot apply; the answers are what a model writes.
func TestParseAdjustment(t *testing.T) {
	done := []string{"s1"}
	left := []schema.PlanStep{
		{ID: "s2", Description: "Update the callers", TargetFiles: []string{"app/api.py"}, TargetSymbols: []string{"handler"}, DependsOn: []string{"s1"}},
		{ID: "s3", Description: "Test it", TargetFiles: []string{"tests/test_api.py"}, DependsOn: []string{"s2"}},
	}
	added := schema.PlanStep{ID: "s4", Description: "Document it", TargetFiles: []string{"README.md"}, TargetSymbols: []string{}, DependsOn: []string{"s2"}}
	for _, tc := range []struct {
		name, answer string
		want         []schema.PlanStep // when valid
		err          string            // when not
	}{
		{"keep all", `{"revised_steps": [{"id": "s2", "keep": true}, {"id": "s3", "keep": true}], "rationale": "on", "changes_made": []}`, left, ""},
		{"keep, add and drop", `{"revised_steps": [{"id": "s2", "keep": true}, {"id": "s4", "description": "Document it", "target_files": ["README.md"], "target_symbols": [], "depends_on": ["s2"]}], "rationale": "", "changes_made": ["s3 dropped"]}`,
			[]schema.PlanStep{left[0], added}, ""},
		{"keep restating the plan", `{"revised_steps": [{"id": "s2", "keep": true, "target_files": ["app/api.py"]}], "rationale": "", "changes_made": []}`, left[:1], ""},
		{"empty adjustment", `{"revised_steps": [], "rationale": "done", "changes_made": []}`, []schema.PlanStep{}, ""},
		{"keep an unknown id", `{"revised_steps": [{"id": "s9", "keep": true}], "rationale": "", "changes_made": []}`, nil, `keeps step "s9", which is not a step left (left: s2, s3)`},
		{"keep a done id", `{"revised_steps": [{"id": "s1", "keep": true}], "rationale": "", "changes_made": []}`, nil, `"s1" is done already: it cannot be kept`},
		{"keep and revise in one entry", `{"revised_steps": [{"id": "s2", "keep": true, "target_files": ["app/cli.py"]}], "rationale": "", "changes_made": []}`, nil, `"s2" is both kept and revised`},
		{"keep and revise in two entries", `{"revised_steps": [{"id": "s2", "keep": true}, {"id": "s2", "description": "x", "target_files": [], "target_symbols": [], "depends_on": []}], "rationale": "", "changes_made": []}`, nil, `"s2" is both kept and revised`},
		{"keep a step whose dependency was dropped", `{"revised_steps": [{"id": "s3", "keep": true}], "rationale": "", "changes_made": []}`, nil, `"s3" depends on "s2"`},
		{"an unknown field", `{"revised_steps": [{"id": "s2", "kept": true}], "rationale": "", "changes_made": []}`, nil, `unknown field "kept"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseAdjustment(tc.answer, done, left)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("%v, want valid", err)
			case tc.err == "" && !reflect.DeepEqual(got.Steps(), tc.want):
				t.Errorf("steps %+v, want %+v", got.Steps(), tc.want)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("%v, want an error with %q", err, tc.err)
			}
		})
	}
}

// An oracle reads back what the renderers wrote: the stage of each system
// prompt, the task, an implement step's files, an adjustment's steps left.
func TestReadingPromptsBack(t *testing.T) {
	step := schema.PlanStep{ID: "s2", Description: "Make add return the sum\n\nfor real", TargetFiles: []string{"calc.py", "pkg/util.py"}}
	task := "Fix add\n\nIt subtracts."
	cases := []struct {
		name  string
		p     Prompt
		stage string
	}{
		{"task analysis", TaskAnalysisPrompt(task), schema.StageTaskAnalysis},
		{"scope", ScopePrompt(ScopeInput{Task: task, Candidates: []ScopeCandidate{{Path: "calc.py"}}}), schema.StageScope},
		{"precision", PrecisionPrompt(PrecisionInput{Task: task}), schema.StagePrecision},
		{"plan", PlanPrompt(PlanAtomic, PlanInput{Task: task}), PlanAtomic},
		{"meta plan", AskAgain(PlanPrompt(PlanMeta, PlanInput{Task: task}), "{", errors.New("bad")), PlanMeta},
		{"part plan", PlanPrompt(PlanPart, PlanInput{Task: task, Part: &schema.MetaPart{ID: "p1"}}), PlanPart},
		{"adjustment", PlanPrompt(PlanAdjustment, PlanInput{Task: task, Remaining: []schema.PlanStep{{ID: "s3", Description: "Fix add\n\n- not sub", TargetFiles: []string{"calc.py"}}, {ID: "s4"}}}), PlanAdjustment},
		{"implement", ImplementPrompt(ImplementInput{Task: task, Step: &step, Files: []File{{Path: "calc.py", Content: "x\n"}}}), schema.StageImplement},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := StageOf(c.p.System); got != c.stage {
				t.Errorf("StageOf = %q, want %q", got, c.stage)
			}
			if got := TaskOf(c.p.User); got != "Fix add\n\nIt subtracts." {
				t.Errorf("TaskOf = %q", got)
			}
		})
	}
	if got := StageOf("You are a helpful assistant."); got != "" {
		t.Errorf("an unknown system prompt is %q", got)
	}
	if got := StepFiles(cases[7].p.User); strings.Join(got, ",") != "calc.py,pkg/util.py" {
		t.Errorf("StepFiles = %q", got)
	}
	part := PlanPrompt(PlanPart, PlanInput{Task: "Fix add", Part: &schema.MetaPart{ID: "p1", Description: "Fix add", AffectedFiles: []string{"calc.py", "b.py"}},
		Remaining: []schema.PlanStep{{ID: "s1"}}})
	if got := PartFiles(part.User); strings.Join(got, ",") != "calc.py,b.py" {
		t.Errorf("PartFiles = %q", got)
	}
	if got := StepFiles(cases[3].p.User); got != nil {
		t.Errorf("StepFiles of a plan prompt = %q", got)
	}
	withFiles := PlanPrompt(PlanMeta, PlanInput{Task: "Fix add", Files: []ContextFile{
		{Path: "calc.py", Symbols: []ContextSymbol{{Tier: "primary", Text: "def add(a, b):\n\n    return a - b\n"}}, Notes: []string{"changes with util.py"}},
		{Path: "util.py"}}, Remaining: []schema.PlanStep{{ID: "s3"}}})
	if got := ContextPaths(withFiles.User); strings.Join(got, ",") != "calc.py,util.py" {
		t.Errorf("ContextPaths = %q", got)
	}
	if got := RemainingSteps(cases[6].p.User); strings.Join(got, ",") != "s3,s4" {
		t.Errorf("RemainingSteps = %q", got)
	}
}

// The prompt that asks again shows the refused answer's start only, and
// says how much it left out: a huge answer (a JSON bomb) must not make
// the second ask too large to send.
func TestAskAgainBoundsTheAnswerShown(t *testing.T) {
	p := Prompt{System: "s", User: "task"}
	for _, tc := range []struct {
		name   string
		answer string
		cut    bool
	}{
		{"short", "{", false},
		{"at the bound", strings.Repeat("[", maxAnswerShown), false},
		{"over it", strings.Repeat("[", maxAnswerShown+1), true},
		{"a bomb", strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000), true},
		{"cut inside a rune", strings.Repeat("é", maxAnswerShown), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := AskAgain(p, tc.answer, errors.New(strings.Repeat("bad ", 10_000))).User
			if len(got) > len(p.User)+maxAnswerShown+maxAnswerShown/4+300 {
				t.Errorf("%d bytes asked again", len(got))
			}
			if cut := strings.Contains(got, "more bytes not shown"); cut != tc.cut {
				t.Errorf("cut %v, want %v", cut, tc.cut)
			}
			if !tc.cut && !strings.Contains(got, tc.answer) {
				t.Error("a short answer is not shown whole")
			}
			if !utf8.ValidString(got) {
				t.Error("the prompt is not valid UTF-8")
			}
		})
	}
}
