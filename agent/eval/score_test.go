package eval

import (
	"math"
	"testing"

	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/kb/schema"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// The scoring rules at partial scores (issue 26, finding 8): each metric
// on cases partly right, so an off-by-one, a swapped argument or a flipped
// comparison changes a value, not only the all-right and all-wrong ends.
func TestScoringHelpersAtPartialScores(t *testing.T) {
	for _, tt := range []struct {
		name      string
		got, want float64
	}{
		{"recall 2 of 3", recall([]string{"a", "b", "z"}, []string{"a", "b", "c"}), 2.0 / 3},
		{"recall, the other way (precision)", recall([]string{"a", "b", "c"}, []string{"a", "z"}), 1.0 / 2},
		{"recall of nothing wanted", recall(nil, nil), 1},
		{"recall of nothing found", recall(nil, []string{"a"}), 0},
		{"f1 of 1 and 2/3", f1(1, 2.0/3), 0.8},
		{"f1 of 1/2 and 1/4", f1(0.5, 0.25), 1.0 / 3},
		{"f1 of 0 and 0", f1(0, 0), 0},
		{"dice 2 of 3 and 2", dice([]string{"a", "b", "c"}, []string{"a", "b"}), 0.8},
		{"dice of multisets", dice([]string{"a", "a"}, []string{"a"}), 2.0 / 3},
		{"dice of nothing changed", dice(nil, nil), 1},
		{"dice of no line in common", dice([]string{"a"}, []string{"b"}), 0},
		{"order 2 of 3 pairs", orderAgreement([]string{"a", "b", "c"}, []string{"a", "c", "b"}), 2.0 / 3},
		{"order reversed", orderAgreement([]string{"c", "a"}, []string{"a", "b", "c"}), 0},
		{"order, one file in common", orderAgreement([]string{"a", "z"}, []string{"a", "b"}), 1},
	} {
		if !near(tt.got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	for _, tt := range []struct {
		name        string
		truth, pred []string
		acc, macro  float64
	}{
		// primary F1 1, context 0, excluded 2/3 (one false positive).
		{"2 of 3 tiers", []string{"primary", "context", "excluded"}, []string{"primary", "excluded", "excluded"}, 2.0 / 3, 5.0 / 9},
		// primary: p 1/2, r 1 → 2/3; excluded: p 1, r 1/2 → 2/3.
		{"1 of 2 swapped", []string{"primary", "excluded"}, []string{"primary", "primary"}, 0.5, 1.0 / 3},
		// 2 labels over 4 symbols: primary 2/3, excluded 0.8.
		{"3 of 4, two labels", []string{"primary", "primary", "excluded", "excluded"}, []string{"primary", "excluded", "excluded", "excluded"},
			0.75, 11.0 / 15},
		{"all right", []string{"primary", "context"}, []string{"primary", "context"}, 1, 1},
		{"no symbol", nil, nil, 1, 1},
	} {
		acc, macro := accuracyAndMacroF1(tt.truth, tt.pred)
		if !near(acc, tt.acc) || !near(macro, tt.macro) {
			t.Errorf("%s: accuracy %v, macro F1 %v; want %v, %v", tt.name, acc, macro, tt.acc, tt.macro)
		}
	}
}

// A run partly right at every stage gets the exact partial value of each
// metric, and "correct" only where the stage's rule is met.
func TestScoreAPartlyRightRun(t *testing.T) {
	task := Task{Truth: prompt.Truth{
		Scope: schema.ScopeTarget{Touched: []string{"a.py", "b.py", "c.py"}},
		Precision: schema.PrecisionTarget{Symbols: []schema.PrecisionSymbol{
			{File: "a.py", QualifiedName: "f", Tier: schema.TierPrimary},
			{File: "b.py", QualifiedName: "g", Tier: schema.TierSupporting},
			{File: "c.py", QualifiedName: "h", Tier: schema.TierExcluded},
		}},
		Plan: schema.PlanArtifact{AffectedFiles: []schema.PlanFile{{Path: "a.py", Role: "modify"}, {Path: "d.py", Role: "create"}}},
		MetaPlan: schema.MetaPlan{Parts: []schema.MetaPart{
			{ID: "p1", AffectedFiles: []string{"a.py", "b.py"}}, {ID: "p2", AffectedFiles: []string{"c.py"}},
		}},
		PartPlan: schema.PartPlan{Steps: []schema.PlanStep{
			{TargetFiles: []string{"a.py"}}, {TargetFiles: []string{"b.py"}}, {TargetFiles: []string{"c.py"}},
		}},
		Implement: schema.ImplementTarget{Files: []schema.ImplementFile{{Path: "a.py", Content: "x = 1\ny = 2\n"}},
			Edits: []schema.Edit{{File: "a.py", Search: "y = 2\n", Replace: "y = 3\n"}}},
	}}
	final := "x = 1\ny = 4\n"
	run := runView{
		Seeds: []retrieval.Mention{{Files: []string{"a.py"}}, {Files: []string{"b.py", "z.py"}}},
		Context: &retrieval.Context{
			Candidates: []schema.ScopeCandidate{{Path: "a.py"}, {Path: "b.py"}, {Path: "c.py"}, {Path: "y.py"}, {Path: "z.py"}},
			Kept:       []schema.ScopeCandidate{{Path: "a.py"}, {Path: "b.py"}, {Path: "y.py"}, {Path: "z.py"}},
			Symbols:    map[string]string{"a.py:f": schema.TierPrimary, "b.py:g": schema.TierExcluded},
		},
		Meta: &schema.MetaPlan{Parts: []schema.MetaPart{
			{ID: "p1", AffectedFiles: []string{"a.py"}}, {ID: "p2", AffectedFiles: []string{"b.py", "z.py"}},
		}},
		Parts:   []schema.PartPlan{{Steps: []schema.PlanStep{{TargetFiles: []string{"c.py"}}, {TargetFiles: []string{"a.py"}}}}},
		Applied: []bool{true, false, true},
		Final:   map[string]*string{"a.py": &final},
		Changed: []string{"a.py"},
	}
	type key struct{ stage, metric string }
	want := map[key]float64{
		{schema.StageTaskAnalysis, MetricRecall}:  2.0 / 3,
		{schema.StageTaskAnalysis, MetricCorrect}: 0,
		{schema.StageScope, MetricRecall}:         2.0 / 3,
		{schema.StageScope, MetricPrecision}:      0.5,
		{schema.StageScope, MetricF1}:             4.0 / 7,
		{schema.StageScope, MetricReach}:          1,
		{schema.StageScope, MetricCorrect}:        0,
		{schema.StagePrecision, MetricAccuracy}:   2.0 / 3,
		{schema.StagePrecision, MetricMacroF1}:    5.0 / 9,
		{schema.StagePrecision, MetricCorrect}:    1, // the primary symbol is right
		{schema.StageMetaPlan, MetricParts}:       1,
		{schema.StageMetaPlan, MetricF1}:          2.0 / 3,
		{schema.StageMetaPlan, MetricCorrect}:     0,
		{schema.StagePartPlan, MetricF1}:          0.8, // every step file wanted, 2 of 3 wanted named
		{schema.StagePartPlan, MetricOrder}:       0,
		{schema.StagePartPlan, MetricCorrect}:     0,
		{schema.StagePartPlan, MetricRoles}:       0.5, // a.py modified; d.py never created
		{schema.StageImplement, MetricApply}:      2.0 / 3,
		{schema.StageImplement, MetricReproduce}:  0,
		{schema.StageImplement, MetricSimilarity}: 0.5, // -y = 2 shared, +y = 3 against +y = 4
	}
	for _, tt := range []struct {
		name      string
		j         judgement
		runPassed bool
		success   float64 // -1: not scored
	}{
		{"judged by tests, passed", judgement{JudgedBy: JudgedByTests}, true, 1},
		{"judged by tests, failed", judgement{JudgedBy: JudgedByTests}, false, 0},
		{"judged by reproduction", judgement{JudgedBy: JudgedByReproduction}, true, 0},
		{"undecidable", judgement{JudgedBy: JudgedUndecidable}, true, -1},
	} {
		got := map[key]float64{}
		for _, s := range score(task, run, tt.j, tt.runPassed) {
			if _, dup := got[key{s.Stage, s.Metric}]; dup {
				t.Errorf("%s: %s %s scored twice", tt.name, s.Stage, s.Metric)
			}
			got[key{s.Stage, s.Metric}] = s.Value
		}
		w := map[key]float64{}
		for k, v := range want {
			w[k] = v
		}
		if tt.success >= 0 {
			w[key{schema.StageImplement, MetricCorrect}] = tt.success
			w[key{StageEndToEnd, MetricSuccess}] = tt.success
			if tt.j.JudgedBy == JudgedByTests {
				w[key{schema.StageImplement, MetricTests}] = tt.success
			}
		}
		for k, v := range w {
			if g, ok := got[k]; !ok || !near(g, v) {
				t.Errorf("%s: %s %s = %v (scored: %v), want %v", tt.name, k.stage, k.metric, g, ok, v)
			}
		}
		for k := range got {
			if _, ok := w[k]; !ok {
				t.Errorf("%s: %s %s scored, want none", tt.name, k.stage, k.metric)
			}
		}
	}
}

// The part plan's metrics over several answers: the files its steps name
// (F1), their order, "correct" only with both right, and the roles the
// run gave the plan's files.
func TestScorePartPlanAtPartialScores(t *testing.T) {
	task := Task{Truth: prompt.Truth{
		Plan: schema.PlanArtifact{AffectedFiles: []schema.PlanFile{{Path: "a.py", Role: "modify"}, {Path: "d.py", Role: "create"}}},
		PartPlan: schema.PartPlan{Steps: []schema.PlanStep{
			{TargetFiles: []string{"a.py"}}, {TargetFiles: []string{"b.py"}}, {TargetFiles: []string{"c.py"}},
		}},
		Implement: schema.ImplementTarget{Files: []schema.ImplementFile{{Path: "a.py", Content: "x = 1\n"}}},
	}}
	content := "x = 2\n"
	for _, tt := range []struct {
		name                      string
		steps                     []string
		final                     map[string]*string
		changed                   []string
		f1, order, correct, roles float64
	}{
		{"right", []string{"a.py", "b.py", "c.py"}, map[string]*string{"a.py": &content, "d.py": &content}, []string{"a.py", "d.py"}, 1, 1, 1, 1},
		{"the files reversed", []string{"c.py", "b.py", "a.py"}, nil, nil, 1, 0, 0, 0},
		{"one file missing", []string{"a.py", "c.py"}, nil, nil, 0.8, 1, 0, 0},
		{"one file too many", []string{"a.py", "b.py", "c.py", "z.py"}, nil, nil, 6.0 / 7, 1, 0, 0},
		{"a.py modified, d.py not created", []string{"a.py"}, map[string]*string{"a.py": &content}, []string{"a.py"}, 0.5, 1, 0, 0.5},
		{"a.py deleted, d.py not created", []string{"a.py"}, map[string]*string{"a.py": nil}, []string{"a.py"}, 0.5, 1, 0, 0},
	} {
		var steps []schema.PlanStep
		for _, f := range tt.steps {
			steps = append(steps, schema.PlanStep{TargetFiles: []string{f}})
		}
		got := map[string]float64{}
		for _, s := range score(task, runView{Parts: []schema.PartPlan{{Steps: steps}}, Final: tt.final, Changed: tt.changed},
			judgement{JudgedBy: JudgedUndecidable}, false) {
			if s.Stage == schema.StagePartPlan {
				got[s.Metric] = s.Value
			}
		}
		want := map[string]float64{MetricF1: tt.f1, MetricOrder: tt.order, MetricCorrect: tt.correct, MetricRoles: tt.roles}
		for m, v := range want {
			if g, ok := got[m]; !ok || !near(g, v) {
				t.Errorf("%s: part_plan %s = %v (scored: %v), want %v", tt.name, m, g, ok, v)
			}
		}
	}
}

// Scope's reach (every touched file among the candidates) and the meta
// plan's part count, on both sides.
func TestScoreReachAndPartCount(t *testing.T) {
	task := Task{Truth: prompt.Truth{
		Scope: schema.ScopeTarget{Touched: []string{"a.py", "c.py"}},
		MetaPlan: schema.MetaPlan{Parts: []schema.MetaPart{
			{ID: "p1", AffectedFiles: []string{"a.py"}}, {ID: "p2", AffectedFiles: []string{"c.py"}},
		}},
	}}
	part := func(f string) schema.MetaPart { return schema.MetaPart{AffectedFiles: []string{f}} }
	for _, tt := range []struct {
		name         string
		cands, kept  []string
		parts        []schema.MetaPart
		reach, count float64
	}{
		{"reached, two parts", []string{"a.py", "b.py", "c.py"}, []string{"a.py"}, []schema.MetaPart{part("a.py"), part("c.py")}, 1, 1},
		{"c.py never a candidate, one part", []string{"a.py", "b.py"}, []string{"a.py"}, []schema.MetaPart{part("a.py")}, 0, 0},
		{"three parts", []string{"a.py", "c.py"}, []string{"a.py", "c.py"}, []schema.MetaPart{part("a.py"), part("c.py"), part("b.py")}, 1, 0},
	} {
		ctx := &retrieval.Context{}
		for _, c := range tt.cands {
			ctx.Candidates = append(ctx.Candidates, schema.ScopeCandidate{Path: c})
		}
		for _, k := range tt.kept {
			ctx.Kept = append(ctx.Kept, schema.ScopeCandidate{Path: k})
		}
		got := map[string]float64{}
		for _, s := range score(task, runView{Context: ctx, Meta: &schema.MetaPlan{Parts: tt.parts}}, judgement{JudgedBy: JudgedUndecidable}, false) {
			got[s.Stage+" "+s.Metric] = s.Value
		}
		if got["scope reach"] != tt.reach || got["meta_plan parts"] != tt.count {
			t.Errorf("%s: reach %v, parts %v; want %v, %v", tt.name, got["scope reach"], got["meta_plan parts"], tt.reach, tt.count)
		}
	}
}
