package adapters

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cra-dev/cra/agent/eval"
	"github.com/cra-dev/cra/internal/charts"
	"github.com/cra-dev/cra/internal/report"
	"github.com/cra-dev/cra/kb"
)

// writeGateReport writes the gate's report.md and its self-contained
// report.html into dir.
func writeGateReport(dir string, a kb.AdapterRow, res *GateResult) error {
	doc := gateDocument(a, res)
	page, err := report.HTML(doc)
	if err != nil {
		return fmt.Errorf("the gate's report: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("the gate's report: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(report.Markdown(doc)), 0o644); err != nil {
		return fmt.Errorf("the gate's report: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.html"), page, 0o644); err != nil {
		return fmt.Errorf("the gate's report: %w", err)
	}
	return nil
}

// gateDocument is the gate's report: the verdict per condition, the
// paired differences per stage (a figure and a table), the tasks that
// flipped, and what the tasks were checked against.
func gateDocument(a kb.AdapterRow, res *GateResult) report.Document {
	g := res.Gate
	verdict := "**failed**"
	if g.Passed {
		verdict = "**passed**"
	}
	doc := report.Document{
		Title: fmt.Sprintf("Gate %d: %s", g.ID, a.Ref()),
		Byline: fmt.Sprintf("%s for %s · baseline eval `%s`, candidate eval `%s` · %d held-out tasks",
			verdict, strings.Join(a.Stages, ", "), g.BaselineEval, g.CandidateEval, res.Tasks),
		UnitsTogether: true,
	}
	doc.Sections = append(doc.Sections, verdictSection(g), diffSection(res.Diffs), flipSection(res.Flips), tasksSection(a, res))
	return doc
}

// ConditionHead heads a table of the gate's conditions, one ConditionRow
// each (the report's and the terminal's).
var ConditionHead = []string{"condition", "verdict", "candidate", "baseline", "difference", "95 % interval", "bound"}

// ConditionRow is a condition's name, verdict and figures: k/n of each
// side, the paired difference, its interval and the bound it was held to.
func ConditionRow(c kb.GateCondition) []string {
	v := "failed"
	if c.Passed {
		v = "passed"
	}
	f := c.Figures
	bound := fmt.Sprintf("%+.3f", f["bound"])
	n := int(f["n"])
	if n == 0 {
		return []string{c.Name, v, "no paired task", "", "", "", bound}
	}
	return []string{c.Name, v, fmt.Sprintf("%d/%d", int(f["k_candidate"]), n), fmt.Sprintf("%d/%d", int(f["k_baseline"]), n),
		fmt.Sprintf("%+.3f", f["diff"]), fmt.Sprintf("[%+.3f, %+.3f]", f["low"], f["high"]), bound}
}

func verdictSection(g kb.GateRow) report.Section {
	var champions []string
	for _, s := range sortedStages(g.Stages) {
		champions = append(champions, fmt.Sprintf("%s: %s", s, orNone(g.Champions[s])))
	}
	t := report.Table{Head: ConditionHead}
	for _, c := range g.Conditions {
		row := ConditionRow(c)
		row[0] = "`" + row[0] + "`"
		t.Rows = append(t.Rows, row)
	}
	t.Highlight = func(row []string) bool { return row[1] == "failed" }
	return report.Section{Title: "Verdict", Level: 2, Tables: []report.Table{t},
		Paras: []string{
			"Judged against the champions " + strings.Join(champions, "; ") + " (promotion checks they are still the champions).",
			"The rule: each target stage's `correct` improves (the lower bound of the 95 % interval of the paired difference " +
				"candidate − baseline above 0); end-to-end `success` falls by no more than `[adapters] max_regression` " +
				"(lower bound at least −max_regression); no other stage falls significantly (upper bound below 0 is a fall). " +
				"Intervals are Newcombe's for paired proportions, on the tasks both evals scored.",
		}}
}

func diffSection(diffs []eval.Diff) report.Section {
	t := report.Table{Head: []string{"stage", "tasks", "baseline", "candidate", "difference", "95 % interval"}}
	var pts charts.Points
	var names []string
	for _, d := range diffs {
		t.Rows = append(t.Rows, []string{d.Stage, fmt.Sprint(d.N), fmt.Sprintf("%.3f", d.Other), fmt.Sprintf("%.3f", d.This),
			fmt.Sprintf("%+.3f", d.Diff), fmt.Sprintf("[%+.3f, %+.3f]", d.Interval.Lo, d.Interval.Hi)})
		pts.Add(d.Diff, d.Interval.Lo, d.Interval.Hi)
		names = append(names, d.Stage)
	}
	fig := report.Figure{ID: "paired-differences", Caption: "Candidate − baseline per stage (`correct`; end to end: `success`), with 95 % intervals",
		Draw: func() ([]byte, error) {
			p := charts.New("Paired difference, candidate − baseline", "difference")
			if err := charts.Bars(p, &pts, names, charts.BarColor); err != nil {
				return nil, err
			}
			if pts.Len() > 0 {
				p.Y.Min, p.Y.Max = -1, 1
				charts.TiltLabels(p)
			}
			return charts.InlineSVG(p)
		}}
	return report.Section{Title: "Paired differences per stage", Level: 2, Figures: []report.Figure{fig}, Tables: []report.Table{t}}
}

func flipSection(flips []eval.Flip) report.Section {
	s := report.Section{Title: "Tasks that flipped", Level: 2}
	if len(flips) == 0 {
		s.Paras = []string{"No task changed its verdict in any stage."}
		return s
	}
	type pair struct{ lost, gained []string }
	by := map[string]*pair{}
	var stages []string
	for _, f := range flips {
		p := by[f.Stage]
		if p == nil {
			p = &pair{}
			by[f.Stage] = p
			stages = append(stages, f.Stage)
		}
		name := fmt.Sprintf("`%.16s` (%s)", f.Task, filepath.Base(f.Repo))
		if f.Gained {
			p.gained = append(p.gained, name)
		} else {
			p.lost = append(p.lost, name)
		}
	}
	sort.SliceStable(stages, func(i, j int) bool { return stageIndex(stages[i]) < stageIndex(stages[j]) })
	t := report.Table{Head: []string{"stage", "right → wrong", "wrong → right"}}
	for _, st := range stages {
		t.Rows = append(t.Rows, []string{st, listOrNone(by[st].lost), listOrNone(by[st].gained)})
	}
	s.Paras = []string{"Tasks right under one routing and wrong under the other: what the differences are made of."}
	s.Tables = []report.Table{t}
	return s
}

func stageIndex(s string) int {
	for i, x := range eval.ScoredStages {
		if x == s {
			return i
		}
	}
	return len(eval.ScoredStages)
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

func tasksSection(a kb.AdapterRow, res *GateResult) report.Section {
	s := report.Section{Title: "Tasks", Level: 2}
	if res.Lineage == "" {
		s.Paras = append(s.Paras, fmt.Sprintf("_%s was registered without a dataset (`--dataset`): nothing shows that it was not trained on these tasks._", a.Ref()))
	} else {
		s.Paras = append(s.Paras, fmt.Sprintf("%s was trained on `%s`; none of its train split's examples comes from these tasks.", a.Ref(), res.Lineage))
	}
	for _, r := range []*eval.Report{res.Baseline, res.Candidate} {
		if r != nil && r.Errors > 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("Eval `%s`: %d of %d tasks could not run; the verdict pairs the tasks both evals scored.", r.Name, r.Errors, r.Tasks))
		}
	}
	return s
}
