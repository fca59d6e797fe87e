package analysis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/cra-dev/cra/kb"
)

// answered is o with who answered its stages.
func answered(o kb.EvalOutcome, by map[string]string) kb.EvalOutcome {
	o.Adapters = by
	return o
}

// mixedOutcomes are tasks of plain run 1: three whose scope the base
// model answered, two the adapter sc@1, one both; precision is the base
// model's in all. Scope and precision are right in successes only.
func mixedOutcomes() []kb.EvalOutcome {
	var out []kb.EvalOutcome
	for i, scope := range []string{kb.AnsweredBase, kb.AnsweredBase, kb.AnsweredBase, "sc@1", "sc@1", kb.AnsweredMixed} {
		ok := i%2 == 0
		out = append(out, answered(outcome(1, fmt.Sprint(i), "/r", ok, map[string]bool{"scope": ok, "precision": ok}),
			map[string]string{"scope": scope, "precision": kb.AnsweredBase}))
	}
	return out
}

// A stage's figures pool only the tasks its current route answered (or
// that never called it); end-to-end figures only the tasks every current
// route answered; what was left out is reported by stage and answerer.
func TestEvidenceSeparatedByAdapter(t *testing.T) {
	runs := []kb.EvalRunInfo{{ID: 1, Name: "nightly", Split: "validation"}}
	for name, tc := range map[string]struct {
		routes   map[string]string
		outcomes []kb.EvalOutcome
		// scored per stage, tasks with an end-to-end outcome counted,
		// tasks in precision's association
		scope, precision, observations, assoc int
		setAside                              []SetAside
		e2eAside                              int
		none                                  bool // no adapters section
	}{
		"no adapter anywhere: all pooled, nothing to say": {
			outcomes: []kb.EvalOutcome{answered(outcome(1, "a", "/r", true, map[string]bool{"scope": true}), map[string]string{"scope": kb.AnsweredBase}),
				outcome(1, "b", "/r", false, map[string]bool{"scope": false})},
			scope: 2, observations: 2, none: true,
		},
		"base routed: the adapter's and the mixed tasks left out": {
			outcomes: mixedOutcomes(), scope: 3, precision: 6, observations: 3, assoc: 3,
			setAside: []SetAside{{"scope", kb.AnsweredMixed, 1}, {"scope", "sc@1", 2}}, e2eAside: 3,
		},
		"sc@1 routed: the base model's and the mixed tasks left out": {
			routes: map[string]string{"scope": "sc@1"}, outcomes: mixedOutcomes(), scope: 2, precision: 6, observations: 2, assoc: 2,
			setAside: []SetAside{{"scope", kb.AnsweredBase, 3}, {"scope", kb.AnsweredMixed, 1}}, e2eAside: 4,
		},
		"another version of the champion is another adapter": {
			routes: map[string]string{"scope": "sc@2"}, outcomes: mixedOutcomes(), scope: 0, precision: 6, observations: 0,
			setAside: []SetAside{{"scope", kb.AnsweredBase, 3}, {"scope", kb.AnsweredMixed, 1}, {"scope", "sc@1", 2}}, e2eAside: 6,
		},
		"a stage never called sets nothing aside": {
			routes:   map[string]string{"adjustment": "adj@1"},
			outcomes: []kb.EvalOutcome{answered(outcome(1, "a", "/r", true, map[string]bool{"scope": true}), map[string]string{"scope": kb.AnsweredBase})},
			scope:    1, observations: 1, setAside: []SetAside{},
		},
	} {
		t.Run(name, func(t *testing.T) {
			e := Analyze(Input{Runs: runs, Outcomes: tc.outcomes, Routes: tc.routes})
			n := func(stage string) int {
				if s := e.Stage(stage); s != nil && s.Correct != nil {
					return s.Correct.N
				}
				return 0
			}
			if n("scope") != tc.scope || n("precision") != tc.precision || e.Observations != tc.observations {
				t.Errorf("scope scored on %d, precision on %d, %d observations; want %d, %d, %d",
					n("scope"), n("precision"), e.Observations, tc.scope, tc.precision, tc.observations)
			}
			if p := e.Stage("precision"); tc.assoc > 0 && (p.Association == nil || p.Association.FailIf.N+p.Association.FailIfNot.N != tc.assoc) {
				t.Errorf("precision's association %+v: want it over the %d tasks every current route answered", p.Association, tc.assoc)
			}
			if tc.none {
				if e.Adapters != nil {
					t.Errorf("adapters %+v, want none", e.Adapters)
				}
				return
			}
			if e.Adapters == nil {
				t.Fatal("no adapters evidence")
			}
			if !reflect.DeepEqual(e.Adapters.SetAside, tc.setAside) || e.Adapters.EndToEndSetAside != tc.e2eAside {
				t.Errorf("set aside %+v and %d end to end; want %+v and %d", e.Adapters.SetAside, e.Adapters.EndToEndSetAside, tc.setAside, tc.e2eAside)
			}
		})
	}
}

// An oracle eval's oracle stages are ground truth's whatever their calls
// logged: they never set a task aside; its other stages do.
func TestOracleStagesSetNothingAside(t *testing.T) {
	runs := []kb.EvalRunInfo{{ID: 1, Name: "n", Split: "validation"}, {ID: 2, Name: "n", Oracle: []string{"scope"}, Split: "validation"}}
	for _, tc := range []struct {
		stage string
		pairs int
	}{{"scope", 1}, {"precision", 0}} {
		outs := []kb.EvalOutcome{
			answered(outcome(1, "a", "/r", false, map[string]bool{"scope": false}), map[string]string{"scope": kb.AnsweredBase}),
			answered(outcome(2, "a", "/r", true, map[string]bool{"scope": true}), map[string]string{tc.stage: "x@1"}),
		}
		e := Analyze(Input{Runs: runs, Outcomes: outs})
		pairs := 0
		for _, l := range e.Lifts {
			pairs += l.Pairs
		}
		if pairs != tc.pairs {
			t.Errorf("%s answered by x@1 in the scope-oracle run: %d oracle pairs, want %d", tc.stage, pairs, tc.pairs)
		}
	}
}

// The gate's evals are left out, and named, unless the user named evals.
func TestGateEvalsLeftOutUnlessNamed(t *testing.T) {
	base, cand := kb.GateEvalPrefix+"sc-v1-base-0badcafe", kb.GateEvalPrefix+"sc-v1-cand-0badcafe"
	runs := []kb.EvalRunInfo{{ID: 1, Name: "nightly", Split: "validation"}, {ID: 2, Name: base, Split: "validation"}, {ID: 3, Name: cand, Split: "validation"}}
	var outs []kb.EvalOutcome
	for run := int64(1); run <= 3; run++ {
		for i := range 2 {
			outs = append(outs, outcome(run, fmt.Sprint(i), "/r", true, map[string]bool{"scope": true}))
		}
	}
	for _, tc := range []struct {
		named         bool
		runs, tasks   int
		leftOut       []string
		adaptersShown bool
	}{{false, 1, 2, []string{base, cand}, true}, {true, 3, 6, nil, false}} {
		e := Analyze(Input{Runs: runs, Outcomes: outs, NamedEvals: tc.named})
		if len(e.EvalRuns) != tc.runs || e.Observations != tc.tasks {
			t.Errorf("named %v: %d runs, %d tasks; want %d, %d", tc.named, len(e.EvalRuns), e.Observations, tc.runs, tc.tasks)
		}
		if (e.Adapters != nil) != tc.adaptersShown || e.Adapters != nil && !reflect.DeepEqual(e.Adapters.GateEvalsLeftOut, tc.leftOut) {
			t.Errorf("named %v: adapters %+v, want gate evals left out %v", tc.named, e.Adapters, tc.leftOut)
		}
	}
	// With the gate's evals only, the decision says why nothing is left.
	e := Analyze(Input{Runs: runs[1:], Outcomes: outs[2:]})
	if d := Decide(e); !strings.Contains(d.Reason, "2 gate evals of `cra adapters eval` left out (name them with --eval to count them)") {
		t.Errorf("decision %q does not say the gate evals were left out", d.Reason)
	}
}

// adaptersReport is the report of mixedOutcomes with scope routed to
// sc@1, and two gates: sc@1's passed, impl@1's failed.
func adaptersReport() *Report {
	gates := []kb.GateRow{
		{ID: 2, Adapter: "impl", Version: 1, Stages: []string{"implement"}, BaselineEval: "gate-impl-v1-base-x", CandidateEval: "gate-impl-v1-cand-x",
			Conditions: []kb.GateCondition{{Name: "end_to_end_within_max_regression", Figures: map[string]float64{"bound": -0.02, "diff": -1}},
				{Name: "target_stage_improves:implement", Passed: true}}, Created: "2026-03-02T10:00:00Z"},
		{ID: 1, Adapter: "sc", Version: 1, Stages: []string{"scope"}, Passed: true, BaselineEval: "gate-sc-v1-base-y", CandidateEval: "gate-sc-v1-cand-y",
			Created: "2026-03-01T10:00:00Z"},
	}
	e := Analyze(Input{Runs: []kb.EvalRunInfo{{ID: 1, Name: "nightly", Split: "validation"}}, Outcomes: mixedOutcomes(),
		Routes: map[string]string{"scope": "sc@1"}, Gates: gates})
	return &Report{TaskID: "t", Version: "test", Evidence: e, Decision: Decide(e)}
}

// The report lists each stage's route, what was left out for it, and the
// latest gate of every adapter version with the failed condition.
func TestReportListsRoutesAndGates(t *testing.T) {
	r := adaptersReport()
	md := strings.Join(strings.Fields(sectionMD(t, r, "Adapters")), " ")
	for _, want := range []string{
		"| scope | sc@1 | 3 tasks answered by base model; 1 task answered by more than one (mixed within the task) |",
		"| precision | base model | — |",
		"End to end: 4 scored tasks left out",
		"| impl@1 | implement | failed (gate 2) | end_to_end_within_max_regression (bound=-0.02 diff=-1) | 2026-03-02T10:00:00Z | gate-impl-v1-base-x, gate-impl-v1-cand-x |",
		"| sc@1 | scope | passed (gate 1) | — |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Adapters section lacks %q:\n%s", want, md)
		}
	}
	lines := strings.Join(AdapterLines(r.Evidence.Adapters), "\n")
	for _, want := range []string{"scope: answered by sc@1; left out: 3 tasks answered by base model", "gate 2 of impl@1 (implement), 2026-03-02T10:00:00Z: failed: end_to_end"} {
		if !strings.Contains(lines, want) {
			t.Errorf("the terminal lines lack %q:\n%s", want, lines)
		}
	}
	if strings.Contains(lines, "precision") {
		t.Errorf("a stage on the base model with nothing left out is not worth a line:\n%s", lines)
	}
}

// plan.json's adapters validate against the schema, which is not vacuous
// about them.
func TestPlanAdaptersValidate(t *testing.T) {
	res := run(t, fixed(plantedStore(t, false)))
	raw := readFile(t, filepath.Join(res.OutDir, PlanFile))
	withAdapters := func(mutate func(a map[string]any)) []byte {
		var m map[string]any
		json.Unmarshal(raw, &m)
		b, _ := json.Marshal(adaptersReport().Evidence.Adapters)
		var a map[string]any
		json.Unmarshal(b, &a)
		mutate(a)
		m["evidence"].(map[string]any)["adapters"] = a
		out, _ := json.Marshal(m)
		return out
	}
	sch := validatePlan(t, withAdapters(func(map[string]any) {}))
	for name, mutate := range map[string]func(a map[string]any){
		"no routes":          func(a map[string]any) { delete(a, "routes") },
		"answerer not a ref": func(a map[string]any) { a["set_aside"].([]any)[0].(map[string]any)["answered_by"] = "sc" },
	} {
		bad, _ := jsonschema.UnmarshalJSON(bytes.NewReader(withAdapters(mutate)))
		if sch.Validate(bad) == nil {
			t.Errorf("%s: validated, want refused", name)
		}
	}
}

// A logged solve run is an end-to-end outcome: it counts only when every
// stage it called was on its current route.
func TestSolveRunsSeparatedByAdapter(t *testing.T) {
	runs := []kb.SolveRun{
		{TaskID: "routed", Status: "complete", Success: true, Adapters: map[string]string{"scope": "sc@1", "implement": kb.AnsweredBase}},
		{TaskID: "before", Status: "failed", Adapters: map[string]string{"scope": kb.AnsweredBase}},
		{TaskID: "silent", Status: "failed"},
	}
	e := Analyze(Input{Solve: runs, Routes: map[string]string{"scope": "sc@1"}})
	if e.Solve == nil || e.Solve.Runs != 2 || e.Adapters == nil || e.Adapters.SolveRunsSetAside != 1 {
		t.Errorf("solve evidence %+v, adapters %+v: want 2 runs pooled, 1 left out", e.Solve, e.Adapters)
	}
}
