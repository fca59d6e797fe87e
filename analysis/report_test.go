package analysis

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"

	"github.com/cra-dev/cra/internal/report"
	"github.com/cra-dev/cra/internal/stats"
	"github.com/cra-dev/cra/kb"
)

// analysed is the report of outcomes of one plain eval run, as Run
// builds it, without a store.
func analysed(outcomes []kb.EvalOutcome) *Report {
	e := Analyze(Input{Runs: []kb.EvalRunInfo{{ID: 1, Name: "nightly", Split: "validation"}}, Outcomes: outcomes})
	return &Report{TaskID: "t", Version: "test", Evidence: e, Decision: Decide(e)}
}

// section returns the Markdown of the report's section titled title.
func sectionMD(t *testing.T, r *Report, title string) string {
	t.Helper()
	for _, s := range r.sections() {
		if s.Title == title {
			return report.MarkdownSections(s)
		}
	}
	t.Fatalf("no section %q", title)
	return ""
}

// definitionalOutcomes are n tasks over repos repositories where
// implement is scored as cra eval scores it (wrong exactly when the task
// fails) and scope is wrong in failed task k when wrongScope(k).
func definitionalOutcomes(n, repos int, wrongScope func(k int) bool) []kb.EvalOutcome {
	var out []kb.EvalOutcome
	for k := range n {
		failed := k%2 == 0
		out = append(out, outcome(1, fmt.Sprintf("t%03d", k), fmt.Sprintf("/r%d", k%repos), !failed,
			map[string]bool{"scope": !(failed && wrongScope(k)) && k%7 != 1, "implement": !failed}))
	}
	return out
}

// TestDefinitionalAssociationIsFlaggedNotTested: implement wrong is
// failure by definition, so its association is shown as such, left out of
// the Holm family and the regression, and cannot choose the target, even
// when it is charged more failed runs than any other stage.
func TestDefinitionalAssociationIsFlaggedNotTested(t *testing.T) {
	// Scope wrong in a few failed runs only: implement is charged the rest.
	r := analysed(definitionalOutcomes(120, 6, func(k int) bool { return k%12 == 0 }))
	e := r.Evidence
	impl, scope := e.Stage("implement"), e.Stage("scope")
	if impl.Association == nil || impl.Association.FailIf.K != impl.Association.FailIf.N || impl.Association.FailIfNot.K != 0 {
		t.Fatalf("implement association %+v: want failure exactly when wrong", impl.Association)
	}
	if impl.Blame.K <= scope.Blame.K || impl.Blame.K < MinCharged {
		t.Fatalf("blame implement %d, scope %d: the case needs implement charged most", impl.Blame.K, scope.Blame.K)
	}
	if impl.Significant || impl.Association.HolmP != 0 || impl.TasksNeeded != nil {
		t.Errorf("implement significant %v, Holm p %v, tasks needed %v: want a definitional association untested",
			impl.Significant, impl.Association.HolmP, impl.TasksNeeded)
	}
	// Scope alone is tested: Holm over one stage leaves its p as it is.
	if scope.Association.HolmP != scope.Association.FisherP {
		t.Errorf("scope Holm p %v, Fisher p %v: want the family to be scope alone", scope.Association.HolmP, scope.Association.FisherP)
	}
	// With implement in, its indicator would separate the outcomes and
	// nothing would be fitted.
	if !e.Regression.Fitted {
		t.Errorf("regression not fitted: %s", e.Regression.Reason)
	}
	for _, c := range e.Regression.Coefficients {
		if c.Term == "implement wrong" {
			t.Errorf("regression has %q: a definitional indicator separates the outcomes", c.Term)
		}
	}
	if r.Decision.Target == "implement" {
		t.Errorf("decision %+v: a definitional association chose the target", r.Decision)
	}

	// Implement the only stage that varies: the regression says why it has
	// nothing to fit.
	var outs []kb.EvalOutcome
	for k := range 40 {
		outs = append(outs, outcome(1, fmt.Sprint(k), "/r", k%2 == 0, map[string]bool{"scope": true, "implement": k%2 == 0}))
	}
	if reason := analysed(outs).Evidence.Regression.Reason; !strings.Contains(reason, "no stage but implement") {
		t.Errorf("regression reason %q: want it to say implement alone varies, by definition", reason)
	}

	_, rows := RankedTable(e, r.Decision)
	for _, row := range rows {
		if row[1] == "implement" && (!strings.Contains(row[len(row)-1], "definitional") || !strings.Contains(row[4], "definitional")) {
			t.Errorf("ranked row %q: want its odds ratio and note to say definitional", row)
		}
	}
	if w := sectionMD(t, r, "Warnings"); !strings.Contains(w, "**Definitional association**") || !strings.Contains(w, "implement") {
		t.Errorf("warnings do not flag implement's definitional association:\n%s", w)
	}
	if a := sectionMD(t, r, "Association with end-to-end failure"); !strings.Contains(a, "| implement |") || !strings.Contains(a, "not tested: definitional") ||
		!strings.Contains(a, "Holm-adjusted over the 1 stage tested") {
		t.Errorf("association section does not show implement as definitional and untested:\n%s", a)
	}
}

// TestSignificanceAndIntervalExplained: a Woolf interval that excludes 1
// beside "significant: no" says why in the row and in the warnings; the
// other cases say what they are.
func TestSignificanceAndIntervalExplained(t *testing.T) {
	assoc := func(lo, hi, holm float64) *Association {
		return &Association{FailIf: newRate(3, 3), FailIfNot: newRate(40, 97), OddsRatio: 177, ORCI: stats.Interval{Lo: lo, Hi: hi}, Corrected: true,
			FisherP: holm / 2, HolmP: holm}
	}
	for _, tc := range []struct {
		name        string
		s           StageEvidence
		cell        string
		warnDiffers bool
	}{
		{"excludes 1, not significant", StageEvidence{Stage: "precision", Association: assoc(2.53, 12401, 0.1998)},
			"no: Holm p 0.1998 ≥ 0.05 (the interval is unadjusted)", true},
		{"excludes 1, significant", StageEvidence{Stage: "precision", Association: assoc(2.53, 12401, 0.01), Significant: true}, "yes", false},
		{"holds 1, not significant", StageEvidence{Stage: "precision", Association: assoc(0.5, 3, 0.4)}, "no", false},
		{"holds 1, Holm p small", StageEvidence{Stage: "precision", Association: assoc(0.9, 3, 0.01)}, "no: the interval holds 1", false},
		{"below 1", StageEvidence{Stage: "precision", Association: assoc(0.1, 0.5, 0.01)}, "no: wrong goes with success", false},
	} {
		if got := significantCell(tc.s); got != tc.cell {
			t.Errorf("%s: significant cell %q, want %q", tc.name, got, tc.cell)
		}
		r := &Report{Evidence: &Evidence{Repos: 8, Stages: []StageEvidence{tc.s}}}
		differs := slices.ContainsFunc(r.warnings(), func(w string) bool { return strings.Contains(w, "interval and test differ") })
		if differs != tc.warnDiffers {
			t.Errorf("%s: warns that interval and test differ: %v, want %v", tc.name, differs, tc.warnDiffers)
		}
	}
	// The association table's heads say which is adjusted.
	r := analysed(definitionalOutcomes(120, 6, func(k int) bool { return k%3 == 0 }))
	md := sectionMD(t, r, "Association with end-to-end failure")
	if !strings.Contains(md, "95% Woolf CI, unadjusted") || !strings.Contains(md, "significant (Holm p < 0.05, interval above 1)") {
		t.Errorf("association table heads do not say the interval is unadjusted and significance the Holm test:\n%s", md)
	}
}

// TestZeroWidthIntervalIsNotPrinted: a bootstrap with nothing to resample
// (one repository whose tasks all score the same; repositories whose
// means are equal) gives no interval, not "0.30–0.30"; every mean's row
// names what was resampled.
func TestZeroWidthIntervalIsNotPrinted(t *testing.T) {
	oneRepo := [][]float64{{0.3, 0.3, 0.3, 0.3}}
	v, iv, method := stats.RepoMean(oneRepo, stats.BootstrapReps, stats.BootstrapSeed)
	equal := [][]float64{{0.72}, {0.72}, {0.72}, {0.72}, {0.72}, {0.72}}
	v2, iv2, method2 := stats.RepoMean(equal, stats.BootstrapReps, stats.BootstrapSeed)
	spread := [][]float64{{0.2, 0.9, 0.4, 0.7}}
	v3, iv3, method3 := stats.RepoMean(spread, stats.BootstrapReps, stats.BootstrapSeed)
	for _, tc := range []struct {
		m            MetricMean
		ci, method   string
		forbidden    string
		warnNoSpread bool
	}{
		{MetricMean{Metric: "recall", Value: v, CI: iv, Method: method, Tasks: 4, Repos: 1},
			"n/a: every task scored 0.30", "bootstrap over tasks of 1 repository", "0.30–0.30", true},
		{MetricMean{Metric: "recall", Value: v2, CI: iv2, Method: method2, Tasks: 6, Repos: 6},
			"n/a: all 6 repositories' means are 0.72", "bootstrap over 6 repositories", "0.72–0.72", true},
		{MetricMean{Metric: "recall", Value: v3, CI: iv3, Method: method3, Tasks: 4, Repos: 1},
			fmt.Sprintf("%s–%s", num(iv3.Lo), num(iv3.Hi)), "bootstrap over tasks of 1 repository", "n/a", false},
		{MetricMean{Metric: "recall", Value: 0.7, CI: stats.Interval{Lo: 0.6999, Hi: 0.7012}, Method: stats.MethodRepoBootstrap, Tasks: 6, Repos: 6},
			"0.6999–0.7012", "bootstrap over 6 repositories", "0.70–0.70", false},
	} {
		r := &Report{Evidence: &Evidence{Repos: tc.m.Repos, Stages: []StageEvidence{{Stage: "scope", Metrics: []MetricMean{tc.m}}}}}
		md := sectionMD(t, r, "Per-stage scores")
		row := fmt.Sprintf("| scope | recall | %s | %s | %s", num(tc.m.Value), tc.ci, tc.method)
		if !strings.Contains(md, row) || strings.Contains(md, tc.forbidden) {
			t.Errorf("%+v: want a row %q and no %q in\n%s", tc.m, row, tc.forbidden, md)
		}
		noSpread := slices.ContainsFunc(r.warnings(), func(w string) bool { return strings.Contains(w, "recall has no interval") })
		if noSpread != tc.warnNoSpread {
			t.Errorf("%+v: warns of no interval: %v, want %v", tc.m, noSpread, tc.warnNoSpread)
		}
	}
}

// TestStagesNamedAsTheTablesShow: the first-error text and the trend
// table name the stages the evals scored (solve's meta_plan and
// part_plan here), not every stage cra knows (plan).
func TestStagesNamedAsTheTablesShow(t *testing.T) {
	var outs []kb.EvalOutcome
	for k := range 30 {
		outs = append(outs, outcome(1, fmt.Sprint(k), "/r", k%3 != 0,
			map[string]bool{"scope": k%3 != 0 || k%2 == 0, "meta_plan": k%4 != 0, "part_plan": true}))
	}
	r := analysed(outs)
	r.Evidence.Trend = trend([]kb.EvalRunInfo{{ID: 1, Name: "nightly", StartedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}}, outs, separation{})
	attr := sectionMD(t, r, "First-error attribution")
	if !strings.Contains(attr, "(scope → meta_plan → part_plan:") {
		t.Errorf("first-error text does not name the scored stages in order:\n%s", attr)
	}
	for _, title := range []string{"First-error attribution", "Scores over eval runs", "Stages ranked"} {
		md := sectionMD(t, r, title)
		for _, stage := range Stages {
			if named := regexp.MustCompile(`\b` + stage + `\b`).MatchString(md); named != (r.Evidence.Stage(stage) != nil) {
				t.Errorf("%s names %s: %v, but the evidence has it: %v\n%s", title, stage, named, !named, md)
			}
		}
	}
}

// TestRankedTableLabelsEveryColumn: no column without a head.
func TestRankedTableLabelsEveryColumn(t *testing.T) {
	r := analysed(definitionalOutcomes(60, 6, func(k int) bool { return k%3 == 0 }))
	head, rows := RankedTable(r.Evidence, r.Decision)
	for i, h := range head {
		if strings.TrimSpace(h) == "" {
			t.Errorf("column %d of %q has no head", i, head)
		}
	}
	for _, row := range rows {
		if len(row) != len(head) {
			t.Errorf("row %q has %d cells for %d heads", row, len(row), len(head))
		}
	}
}

func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		n          int
		noun, want string
	}{
		{1, "success", "1 success"},
		{0, "success", "0 successes"},
		{2, "adjustment pass", "2 adjustment passes"},
		{1, "repository", "1 repository"},
		{3, "repository", "3 repositories"},
		{1, "failed run", "1 failed run"},
		{2, "failed run", "2 failed runs"},
	} {
		if got := plural(tc.n, tc.noun); got != tc.want {
			t.Errorf("plural(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
}

// TestNoPluralAfterOne: a report of one failure and one success says
// "1 failed run", "1 success", never "1 successes".
func TestNoPluralAfterOne(t *testing.T) {
	r := analysed([]kb.EvalOutcome{
		outcome(1, "a", "/r", false, map[string]bool{"scope": false}),
		outcome(1, "b", "/r", true, map[string]bool{"scope": true}),
	})
	r.Evidence.Solve = &SolveEvidence{Runs: 1, Failed: 1, DroppedTouchedRuns: 1, Steps: 1, Adjustments: 1}
	md := Markdown(r)
	if bad := regexp.MustCompile(`\b1 (failed runs|successes|failures|runs|tasks|stages|implement steps|adjustment passes|examples)\b`).FindAllString(md, -1); len(bad) > 0 {
		t.Errorf("plural after 1: %q in\n%s", bad, md)
	}
	if !strings.Contains(md, "1 failed run.") {
		t.Errorf("want %q in\n%s", "1 failed run.", md)
	}
}

// TestWarnings: each reviewer's flag appears when, and only when, its
// condition holds.
func TestWarnings(t *testing.T) {
	rate := func(k, n int) *Rate { r := newRate(k, n); return &r }
	for _, tc := range []struct {
		name string
		e    Evidence
		want []string // a warning containing each, and no other
	}{
		{"nothing to flag", Evidence{Repos: 8, Stages: []StageEvidence{{Stage: "scope", Correct: rate(30, 50)}},
			Trend: make([]TrendPoint, 2)}, nil},
		{"one repository", Evidence{Repos: 1, RepoFailures: []RepoFailure{{Repo: "/repos/only"}}, Trend: make([]TrendPoint, 2)},
			[]string{"**One repository only** (/repos/only)"}},
		{"few repositories", Evidence{Repos: 3, Trend: make([]TrendPoint, 2)}, []string{"**Only 3 repositories**"}},
		{"too few tasks", Evidence{Repos: 8, Stages: []StageEvidence{{Stage: "scope", Correct: rate(3, 6)}}, Trend: make([]TrendPoint, 2),
			Lifts: []OracleLift{{Oracle: []string{"scope"}, Pairs: 4}}},
			[]string{"scope's share right rests on 6 tasks", "the oracle lift of scope rests on 4 paired tasks"}},
		{"small association cell", Evidence{Repos: 8, Trend: make([]TrendPoint, 2), Stages: []StageEvidence{{Stage: "precision",
			Association: &Association{FailIf: newRate(3, 3), FailIfNot: newRate(40, 97), ORCI: stats.Interval{Lo: 0.5, Hi: 40}, HolmP: 0.3}}}},
			[]string{"precision's association rests on 3 tasks where it was wrong"}},
		{"one run", Evidence{Repos: 8, Trend: make([]TrendPoint, 1)}, []string{"**One plain eval run**"}},
	} {
		got := (&Report{Evidence: &tc.e}).warnings()
		if len(got) != len(tc.want) {
			t.Errorf("%s: warnings %q, want %d", tc.name, got, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: warning %q, want it to say %q", tc.name, got[i], w)
			}
		}
	}
	// A plan chosen by association, with no training examples.
	r := &Report{Evidence: &Evidence{Repos: 8, Trend: make([]TrendPoint, 2)},
		Decision: Decision{Status: StatusPlan, Target: "scope", Rule: RuleBlameShare}, Plan: &Plan{}}
	r.Plan.TargetStage = "scope"
	got := strings.Join(r.warnings(), "\n")
	for _, w := range []string{"association, not causation", "`cra eval --oracle scope`", "**The plan has no training examples** for scope"} {
		if !strings.Contains(got, w) {
			t.Errorf("warnings %q: want %q", got, w)
		}
	}
	if md := sectionMD(t, &Report{Evidence: &Evidence{Repos: 8, Trend: make([]TrendPoint, 2)}}, "Warnings"); !strings.Contains(md, "None") {
		t.Errorf("a report with nothing to flag says:\n%s", md)
	}
}

// TestLiftAxisMarksZero: the lift chart's axis has a tick at 0, whatever
// its range (the default ticks of [-0.1, 0.36] skipped it).
func TestLiftAxisMarksZero(t *testing.T) {
	for _, lifts := range [][3]float64{{0.3, 0.233, 0.364}, {-0.05, -0.2, 0.1}, {0.02, -0.01, 0.05}, {0.6, 0.45, 0.8}} {
		r := &Report{Evidence: &Evidence{Lifts: []OracleLift{{Oracle: []string{"scope"}, Lift: lifts[0], CI: stats.Interval{Lo: lifts[1], Hi: lifts[2]}}}}}
		p, err := r.liftChart()
		if err != nil {
			t.Fatal(err)
		}
		ticks := p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max)
		if !slices.ContainsFunc(ticks, func(tk plot.Tick) bool { return tk.Value == 0 && tk.Label == "0" }) {
			t.Errorf("lift %v: ticks %v have no 0", lifts, ticks)
		}
		if p.Y.Min > lifts[1] || p.Y.Max < lifts[2] {
			t.Errorf("lift %v: axis [%v, %v] does not hold the interval", lifts, p.Y.Min, p.Y.Max)
		}
	}
}

// TestTrendLegendOutsideData: the trend chart's stage names are written
// above its data area, never over the points; with one run the title
// says a trend needs two.
func TestTrendLegendOutsideData(t *testing.T) {
	for _, runs := range []int{1, 3} {
		e := &Evidence{Stages: []StageEvidence{{Stage: "task_analysis"}, {Stage: "scope"}, {Stage: "precision"}, {Stage: "plan"}, {Stage: "implement"}}}
		for i := range runs {
			tp := TrendPoint{EvalRunID: int64(i + 1), Correct: map[string]Rate{}}
			for _, s := range e.Stages {
				tp.Correct[s.Stage] = newRate(5+i, 10)
			}
			e.Trend = append(e.Trend, tp)
		}
		p, err := (&Report{Evidence: e}).trendChart()
		if err != nil {
			t.Fatal(err)
		}
		if needs := strings.Contains(p.Title.Text, "a trend needs two"); needs != (runs == 1) {
			t.Errorf("%d runs: title %q", runs, p.Title.Text)
		}
		rec := &recorder.Canvas{}
		c := draw.Canvas{Canvas: rec, Rectangle: vg.Rectangle{Max: vg.Point{X: 16 * vg.Centimeter, Y: 8 * vg.Centimeter}}}
		p.Draw(c)
		data := p.DataCanvas(c)
		seen := 0
		for _, a := range rec.Actions {
			if fs, ok := a.(*recorder.FillString); ok && e.Stage(fs.String) != nil {
				seen++
				if fs.Point.Y < data.Max.Y {
					t.Errorf("%d runs: legend entry %q at y %v, inside the data area (top %v)", runs, fs.String, fs.Point.Y, data.Max.Y)
				}
			}
		}
		if seen != len(e.Stages) {
			t.Errorf("%d runs: %d legend entries drawn, want %d", runs, seen, len(e.Stages))
		}
	}
}

// TestEveryFigureStatesItsMethod: each chart's caption names how its
// intervals were made, or that it has none.
func TestEveryFigureStatesItsMethod(t *testing.T) {
	r := &Report{Evidence: &Evidence{RepoFailures: []RepoFailure{{}, {}}, Trend: make([]TrendPoint, 2)}}
	for _, id := range Charts {
		if c := r.caption(id); !strings.Contains(c, chartMethod[id]) {
			t.Errorf("caption of %s %q: want it to name %q", id, c, chartMethod[id])
		}
	}
	r.Evidence.RepoFailures = r.Evidence.RepoFailures[:1]
	if c := r.caption(chartRepos); !strings.Contains(c, "without an interval") {
		t.Errorf("one repository's caption %q: want it to say there is no interval", c)
	}
}
