package analysis

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/cra-dev/cra/kb"
)

// Evidence by adapter. Every logged call records the adapter that
// answered it (none: the base model), and an eval task's outcome says who
// answered each of its stages (kb.EvalOutcome.Adapters). train-plan
// speaks of the pipeline as it is routed now, so it pools only what the
// current routes answered:
//
//   - a stage's own figures (share right, metrics, wrong outputs, its
//     points of the trend) count a task only when the stage's calls in it
//     were answered by the stage's current route — its champion, else the
//     base model — or the task made no call for the stage;
//   - end-to-end figures (success, the association of a stage with
//     failure, attribution, the regression, per-repository failure, oracle
//     lifts) count a task only when every stage it called was on its
//     current route: a success owes something to every stage, so a task
//     that ran another adapter anywhere measured another pipeline;
//   - a logged solve run is an end-to-end outcome: it counts only when
//     every stage it called was on its current route;
//   - an oracle eval's oracle stages are answered by ground truth whatever
//     their calls logged, and never set a task aside;
//   - a stage answered by more than one within a task (kb.AnsweredMixed,
//     a promotion while it ran) is on no route;
//   - the adapter gate's own evals (named kb.GateEvalPrefix…) are left out
//     unless the user names them with --eval: they run a candidate on
//     purpose, and their baseline repeats the user's evals.

// AdapterEvidence says how the evidence was separated by adapter, with
// the registry's state that explains it. It is nil when no stage has a
// champion, no gate ran and nothing was left out: the reports then have
// no Adapters section.
type AdapterEvidence struct {
	// Routes is each stage's route now, in pipeline order: the stages
	// with evidence, a champion or tasks set aside.
	Routes []StageRoute `json:"routes"`
	// Gates is the latest gate verdict of every adapter version gated.
	Gates []GateVerdict `json:"gates"`
	// SetAside counts, per stage and by who answered it, the tasks left
	// out of the stage's figures: not its current route.
	SetAside []SetAside `json:"set_aside"`
	// EndToEndSetAside is how many of the scored tasks read were left out
	// of the end-to-end figures: some stage not on its current route.
	EndToEndSetAside int `json:"end_to_end_set_aside"`
	// GateEvalsLeftOut names the gate's evals left out (not named with
	// --eval).
	GateEvalsLeftOut []string `json:"gate_evals_left_out"`
	// SolveRunsSetAside is how many logged solve runs were left out: some
	// stage not on its current route (the end-to-end rule).
	SolveRunsSetAside int `json:"solve_runs_set_aside"`
}

// StageRoute is a stage and who answers it now.
type StageRoute struct {
	Stage    string `json:"stage"`
	Champion string `json:"champion"` // the champion's NAME@V, or "base" (kb.AnsweredBase): the base model
}

// SetAside is how many tasks of a stage were answered by someone other
// than its current route.
type SetAside struct {
	Stage      string `json:"stage"`
	AnsweredBy string `json:"answered_by"` // NAME@V, "base" or "mixed" (kb.AnsweredBase, kb.AnsweredMixed)
	Tasks      int    `json:"tasks"`
}

// GateVerdict is the latest gate of one adapter version.
type GateVerdict struct {
	GateID        int64              `json:"gate_id"`
	Adapter       string             `json:"adapter"` // NAME@V
	Stages        []string           `json:"stages"`
	Passed        bool               `json:"passed"`
	Failed        []kb.GateCondition `json:"failed_conditions"` // the conditions that failed, with their figures
	Date          string             `json:"date"`              // UTC, 2006-01-02T15:04:05Z
	BaselineEval  string             `json:"baseline_eval"`
	CandidateEval string             `json:"candidate_eval"`
}

// separation tells which outcomes the evidence pools.
type separation struct {
	routes map[string]string  // stage → champion NAME@V; absent: the base model
	oracle map[int64][]string // eval run → its oracle stages
}

func newSeparation(in Input) separation {
	s := separation{routes: in.Routes, oracle: map[int64][]string{}}
	for _, r := range in.Runs {
		s.oracle[r.ID] = r.Oracle
	}
	return s
}

// route is who answers stage now.
func (s separation) route(stage string) string {
	if r, ok := s.routes[stage]; ok {
		return r
	}
	return kb.AnsweredBase
}

// stage reports whether o counts for stage's own figures: its calls were
// the current route's, or it made none, or ground truth answered them.
func (s separation) stage(o kb.EvalOutcome, stage string) bool {
	by, called := o.AnsweredBy(stage)
	return !called || by == s.route(stage) || slices.Contains(s.oracle[o.EvalRunID], stage)
}

// full reports whether o counts for end-to-end figures: every stage it
// called was on its current route.
func (s separation) full(o kb.EvalOutcome) bool {
	for stage := range o.Adapters {
		if !s.stage(o, stage) {
			return false
		}
	}
	return true
}

// solveRuns are the solve runs every current route answered (a solve run
// is an end-to-end outcome), and how many were left out.
func (s separation) solveRuns(runs []kb.SolveRun) ([]kb.SolveRun, int) {
	var out []kb.SolveRun
	for _, r := range runs {
		if s.full(kb.EvalOutcome{Adapters: r.Adapters}) {
			out = append(out, r)
		}
	}
	return out, len(runs) - len(out)
}

func (s separation) fullOnly(outcomes []kb.EvalOutcome) []kb.EvalOutcome {
	var out []kb.EvalOutcome
	for _, o := range outcomes {
		if s.full(o) {
			out = append(out, o)
		}
	}
	return out
}

// withoutGateEvals leaves the gate's evals and their outcomes out of in,
// unless the user named the evals, and returns the names left out.
func withoutGateEvals(in Input) (Input, []string) {
	if in.NamedEvals {
		return in, nil
	}
	gate := map[int64]bool{}
	var names []string
	var runs []kb.EvalRunInfo
	for _, r := range in.Runs {
		if strings.HasPrefix(r.Name, kb.GateEvalPrefix) {
			gate[r.ID] = true
			names = append(names, r.Name)
			continue
		}
		runs = append(runs, r)
	}
	if len(gate) == 0 {
		return in, nil
	}
	var outcomes []kb.EvalOutcome
	for _, o := range in.Outcomes {
		if !gate[o.EvalRunID] {
			outcomes = append(outcomes, o)
		}
	}
	in.Runs, in.Outcomes = runs, outcomes
	return in, names
}

// adapterEvidence gathers the routes, the gates and what s set aside of
// in's outcomes; nil when there is nothing to say.
func (s separation) adapterEvidence(in Input, e *Evidence, gateEvals []string, solveAside int) *AdapterEvidence {
	a := &AdapterEvidence{Routes: []StageRoute{}, Gates: []GateVerdict{}, SetAside: []SetAside{}, GateEvalsLeftOut: nonNil(gateEvals),
		SolveRunsSetAside: solveAside}
	aside := map[string]map[string]int{} // stage → answered by → tasks
	for _, o := range in.Outcomes {
		if !s.full(o) {
			a.EndToEndSetAside++
		}
		for stage, by := range o.Adapters {
			if !s.stage(o, stage) {
				if aside[stage] == nil {
					aside[stage] = map[string]int{}
				}
				aside[stage][by]++
			}
		}
	}
	shown := map[string]bool{}
	for _, st := range e.Stages {
		shown[st.Stage] = true
	}
	for stage := range s.routes {
		shown[stage] = true
	}
	for stage := range aside {
		shown[stage] = true
	}
	for _, stage := range pipelineOrder(shown) {
		a.Routes = append(a.Routes, StageRoute{Stage: stage, Champion: s.route(stage)})
		for _, by := range sortedKeys(aside[stage]) {
			a.SetAside = append(a.SetAside, SetAside{Stage: stage, AnsweredBy: by, Tasks: aside[stage][by]})
		}
	}
	gates := slices.Clone(in.Gates)
	slices.SortFunc(gates, func(x, y kb.GateRow) int {
		return cmp.Or(cmp.Compare(x.Adapter, y.Adapter), cmp.Compare(x.Version, y.Version))
	})
	for _, g := range gates {
		v := GateVerdict{GateID: g.ID, Adapter: (kb.AdapterRow{Name: g.Adapter, Version: g.Version}).Ref(), Stages: nonNil(g.Stages),
			Passed: g.Passed, Failed: []kb.GateCondition{}, Date: g.Created, BaselineEval: g.BaselineEval, CandidateEval: g.CandidateEval}
		for _, c := range g.Conditions {
			if !c.Passed {
				v.Failed = append(v.Failed, c)
			}
		}
		a.Gates = append(a.Gates, v)
	}
	if len(s.routes) == 0 && len(a.Gates) == 0 && len(a.SetAside) == 0 && len(a.GateEvalsLeftOut) == 0 && solveAside == 0 {
		return nil
	}
	return a
}

// pipelineOrder is the stages of set in pipeline order, any other after
// them by name.
func pipelineOrder(set map[string]bool) []string {
	var out []string
	for _, s := range Stages {
		if set[s] {
			out = append(out, s)
		}
	}
	for _, s := range sortedKeys(set) {
		if !slices.Contains(Stages, s) {
			out = append(out, s)
		}
	}
	return out
}

// leftOut says, for a decision short of evidence, what the separation
// left out; "" when nothing was.
func (a *AdapterEvidence) leftOut() string {
	if a == nil {
		return ""
	}
	var out []string
	if n := len(a.GateEvalsLeftOut); n > 0 {
		out = append(out, fmt.Sprintf("%s of `cra adapters eval` left out (name them with --eval to count them)", plural(n, "gate eval")))
	}
	if a.EndToEndSetAside > 0 {
		out = append(out, fmt.Sprintf("%s left out: a stage answered by other than its current route", plural(a.EndToEndSetAside, "task")))
	}
	if len(out) == 0 {
		return ""
	}
	return " " + upperFirst(strings.Join(out, "; ")) + "."
}
