package analysis

import (
	"fmt"
	"strings"

	"github.com/cra-dev/cra/internal/report"
	"github.com/cra-dev/cra/kb"
)

const adaptersTitle = "Adapters"

// adaptersSection says who answers each stage now, what the evidence left
// out for it, and the latest gate of every adapter version.
func adaptersSection(a *AdapterEvidence) report.Section {
	sec := report.Section{Title: adaptersTitle, Level: 2, Paras: []string{
		"The evidence below is separated by adapter: a stage's own figures count only the tasks whose calls for the stage its current route answered " +
			"(its champion, else the base model); the end-to-end figures (success, association, attribution, regression, oracle lift) count only " +
			"the tasks in which every stage was answered by its current route. Tasks answered otherwise measured another pipeline and are not pooled."}}
	aside := a.leftOutByStage()
	routes := report.Table{Head: []string{"stage", "answered now by", "left out: not the current route"}}
	for _, r := range a.Routes {
		left := "—"
		if l := aside[r.Stage]; len(l) > 0 {
			left = strings.Join(l, "; ")
		}
		routes.Rows = append(routes.Rows, []string{r.Stage, answererName(r.Champion), left})
	}
	sec.Tables = append(sec.Tables, routes)
	if a.EndToEndSetAside > 0 {
		sec.Paras = append(sec.Paras, fmt.Sprintf("End to end: %s left out, a stage in each answered by other than its current route.",
			plural(a.EndToEndSetAside, "scored task")))
	}
	if a.SolveRunsSetAside > 0 {
		sec.Paras = append(sec.Paras, fmt.Sprintf("Logged solve runs: %s left out, a stage in each answered by other than its current route.",
			plural(a.SolveRunsSetAside, "run")))
	}
	if n := len(a.GateEvalsLeftOut); n > 0 {
		sec.Paras = append(sec.Paras, fmt.Sprintf("%s of `cra adapters eval` left out (%s): a gate runs a candidate on purpose; "+
			"name them with --eval to read them.", upperFirst(plural(n, "gate eval")), strings.Join(a.GateEvalsLeftOut, ", ")))
	}
	if len(a.Gates) == 0 {
		sec.Paras = append(sec.Paras, "No adapter has been gated yet (`cra adapters eval`).")
		return sec
	}
	gates := report.Table{Head: []string{"adapter", "stages", "latest gate", "failed conditions", "date", "evals (baseline, candidate)"}}
	for _, g := range a.Gates {
		verdict, failed := fmt.Sprintf("passed (gate %d)", g.GateID), "—"
		if !g.Passed {
			verdict = fmt.Sprintf("failed (gate %d)", g.GateID)
			var conds []string
			for _, c := range g.Failed {
				conds = append(conds, conditionCell(c))
			}
			failed = strings.Join(conds, "; ")
		}
		gates.Rows = append(gates.Rows, []string{g.Adapter, strings.Join(g.Stages, ", "), verdict, failed, g.Date,
			g.BaselineEval + ", " + g.CandidateEval})
	}
	sec.Tables = append(sec.Tables, gates)
	return sec
}

// leftOutByStage says, per stage, which tasks were left out: "4 tasks
// answered by base model".
func (a *AdapterEvidence) leftOutByStage() map[string][]string {
	out := map[string][]string{}
	for _, s := range a.SetAside {
		out[s.Stage] = append(out[s.Stage], fmt.Sprintf("%s answered by %s", plural(s.Tasks, "task"), answererName(s.AnsweredBy)))
	}
	return out
}

// answererName is who answered as the reports say it.
func answererName(by string) string {
	switch by {
	case kb.AnsweredBase:
		return "base model"
	case kb.AnsweredMixed:
		return "more than one (mixed within the task)"
	}
	return by
}

// conditionCell is a failed gate condition with its figures:
// "end_to_end_within_max_regression (bound=-0.02 diff=-1 ...)".
func conditionCell(c kb.GateCondition) string { return c.Name + " " + kb.GateFigures(c.Figures) }

// AdapterLines are the terminal's lines on adapters: each routed stage
// with what was left out for it, then the latest gates; none without
// adapters.
func AdapterLines(a *AdapterEvidence) []string {
	if a == nil {
		return nil
	}
	var out []string
	left := a.leftOutByStage()
	for _, r := range a.Routes {
		if r.Champion == kb.AnsweredBase && len(left[r.Stage]) == 0 {
			continue
		}
		line := fmt.Sprintf("%s: answered by %s", r.Stage, answererName(r.Champion))
		if l := left[r.Stage]; len(l) > 0 {
			line += "; left out: " + strings.Join(l, ", ") + " (not the current route)"
		}
		out = append(out, line)
	}
	if a.EndToEndSetAside > 0 {
		out = append(out, fmt.Sprintf("end to end: %s left out (a stage not on its current route)", plural(a.EndToEndSetAside, "scored task")))
	}
	if a.SolveRunsSetAside > 0 {
		out = append(out, fmt.Sprintf("solve runs: %s left out (a stage not on its current route)", plural(a.SolveRunsSetAside, "run")))
	}
	if n := len(a.GateEvalsLeftOut); n > 0 {
		out = append(out, fmt.Sprintf("%s of cra adapters eval left out: name them with --eval to read them", plural(n, "gate eval")))
	}
	for _, g := range a.Gates {
		verdict := "passed"
		if !g.Passed {
			var conds []string
			for _, c := range g.Failed {
				conds = append(conds, conditionCell(c))
			}
			verdict = "failed: " + strings.Join(conds, "; ")
		}
		out = append(out, fmt.Sprintf("gate %d of %s (%s), %s: %s", g.GateID, g.Adapter, strings.Join(g.Stages, ", "), g.Date, verdict))
	}
	return out
}
