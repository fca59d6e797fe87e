package analysis

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cra-dev/cra/internal/report"
	"github.com/cra-dev/cra/internal/stats"
	"github.com/cra-dev/cra/kb"
)

// Report is what both reports (Markdown and HTML) show.
type Report struct {
	TaskID        string
	CreatedAt     time.Time
	Version       string
	Filter        kb.LogFilter
	Evidence      *Evidence
	Decision      Decision
	Plan          *Plan
	Narrative     *Narrative
	NarrativeNote string // why there is no narrative
}

// Ranked orders the stages for the terminal and the reports: the target
// first, then by oracle lift, then by blame share, then pipeline order.
func Ranked(e *Evidence, d Decision) []StageEvidence {
	out := slices.Clone(e.Stages)
	lift := func(s StageEvidence) float64 {
		if s.Lift == nil {
			return -2
		}
		return s.Lift.Lift
	}
	slices.SortStableFunc(out, func(a, b StageEvidence) int {
		return cmp.Or(boolCmp(b.Stage == d.Target, a.Stage == d.Target), cmp.Compare(lift(b), lift(a)),
			cmp.Compare(b.Blame.Value, a.Blame.Value))
	})
	return out
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// Column heads and notes the reports share.
const (
	noteTarget       = "← target"
	noteDefinitional = "association definitional"
)

// RankedTable is the ranked stages as a table: the terminal's and the
// reports' first one. Each interval's head names its method; the last
// column notes the target and a definitional association.
func RankedTable(e *Evidence, d Decision) ([]string, [][]string) {
	head := []string{"rank", "stage", "right (95% Wilson CI)", "blame share", "odds ratio of failure when wrong (95% Woolf CI, unadjusted)",
		"Holm p", "oracle lift (95% Newcombe CI)", "note"}
	var rows [][]string
	for i, s := range Ranked(e, d) {
		var notes []string
		if s.Stage == d.Target {
			notes = append(notes, noteTarget)
		}
		or, holm := orCell(s.Association), holmCell(s.Association)
		if _, def := Definitional[s.Stage]; def && s.Association != nil {
			notes = append(notes, noteDefinitional)
			or, holm = "definitional, not evidence", "not tested"
		}
		rows = append(rows, []string{fmt.Sprint(i + 1), s.Stage, rateCell(s.Correct), blameCell(s.Blame), or, holm, liftCell(s.Lift),
			strings.Join(notes, "; ")})
	}
	return head, rows
}

// targetRow picks the ranked row of the target, which the page
// highlights.
func targetRow(row []string) bool {
	return len(row) > 0 && strings.HasPrefix(row[len(row)-1], noteTarget)
}

func rateCell(r *Rate) string {
	if r == nil {
		return "—"
	}
	return fmt.Sprintf("%s (%s–%s) n=%d", pct(r.Value), pct1(r.CI.Lo), pct1(r.CI.Hi), r.N)
}

func pct1(x float64) string { return fmt.Sprintf("%.1f", 100*x) }

func blameCell(r Rate) string {
	if r.N == 0 {
		return "—"
	}
	return fmt.Sprintf("%s (%d of %d)", pct(r.Value), r.K, r.N)
}

func orCell(a *Association) string {
	if a == nil {
		return "—"
	}
	star := ""
	if a.Corrected {
		star = "*"
	}
	return fmt.Sprintf("%s%s (%s–%s)", num(a.OddsRatio), star, num(a.ORCI.Lo), num(a.ORCI.Hi))
}

func holmCell(a *Association) string {
	if a == nil {
		return "—"
	}
	return pval(a.HolmP)
}

func liftCell(l *OracleLift) string {
	if l == nil {
		return "—"
	}
	return fmt.Sprintf("%s (%s to %s)", signedPct(l.Lift), signedPct(l.CI.Lo), signedPct(l.CI.Hi))
}

func assocCell(r Rate) string { return fmt.Sprintf("%s (%d of %d)", pct(r.Value), r.K, r.N) }

// title is the report's headline.
func (r *Report) title() string {
	switch r.Decision.Status {
	case StatusPlan:
		return fmt.Sprintf("Training plan: train %s (%s model)", r.Decision.Target, r.Plan.BaseModel)
	case StatusNoStandout:
		return "Train-plan report: no stage stands out"
	}
	return "Train-plan report: not enough evidence yet"
}

// byline says what the report was computed from.
func (r *Report) byline() string {
	e := r.Evidence
	plain, oracle := 0, 0
	for _, run := range e.EvalRuns {
		if len(run.Oracle) == 0 {
			plain++
		} else {
			oracle++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "`cra train-plan` run `%s`, %s, cra %s. Read %s (%d plain, %d with oracle stages): %s with an end-to-end outcome over %s",
		r.TaskID, r.CreatedAt.Format("2006-01-02 15:04 MST"), r.Version, plural(len(e.EvalRuns), "eval run"), plain, oracle,
		plural(e.Observations, "scored task"), plural(e.Repos, "repository"))
	if e.Solve != nil {
		fmt.Fprintf(&b, ", and %s", plural(e.Solve.Runs, "logged solve run"))
	}
	b.WriteString(".")
	var filter []string
	if !r.Filter.Since.IsZero() {
		filter = append(filter, "since "+r.Filter.Since.Format("2006-01-02"))
	}
	if len(r.Filter.Repos) > 0 {
		filter = append(filter, "repositories "+strings.Join(r.Filter.Repos, ", "))
	}
	if len(r.Filter.Evals) > 0 {
		filter = append(filter, "eval runs named "+strings.Join(r.Filter.Evals, ", "))
	}
	if len(filter) > 0 {
		fmt.Fprintf(&b, " Only %s.", strings.Join(filter, "; "))
	}
	if r.NarrativeNote != "" {
		fmt.Fprintf(&b, " Narrative: %s.", strings.TrimSuffix(r.NarrativeNote, "."))
	}
	return b.String()
}

// sections is the report's content, in order.
func (r *Report) sections() []report.Section {
	e, d := r.Evidence, r.Decision
	decision := report.Section{Title: "Decision", Level: 2}
	switch d.Status {
	case StatusPlan:
		rule := map[string]string{RuleOracleLift: "rule 1, oracle lift", RuleBlameShare: "rule 2, blame share"}[d.Rule]
		decision.Paras = append(decision.Paras, fmt.Sprintf("**Train %s** (%s): %s", d.Target, rule, d.Reason))
	default:
		decision.Paras = append(decision.Paras, "**No training plan.** "+upperFirst(d.Reason))
	}
	decision.Paras = append(decision.Paras, "The rule: "+TheRule)
	head, rows := RankedTable(e, d)
	out := []report.Section{decision, r.warningsSection(), {Title: "Stages ranked", Level: 2, Tables: []report.Table{{Head: head, Rows: rows, Highlight: targetRow}},
		Paras: []string{"Right: share of outputs right against ground truth. Blame share: failed runs whose earliest wrong stage it is. " +
			"Odds ratio: of end-to-end failure, stage wrong against stage right (* 0.5 added to every cell for a zero cell); " +
			"its interval is not adjusted for the stages tested, the Holm p is (see the association below). " +
			"A definitional association (a stage scored wrong exactly when the task fails) is no evidence and is not tested."}}}
	if e.Adapters != nil {
		out = slices.Insert(out, 2, adaptersSection(e.Adapters))
	}
	out = append(out, r.scoreSections()...)
	out = append(out, r.attributionSections()...)
	out = append(out, r.solveSection())
	if len(e.AskEvals) > 0 {
		out = append(out, askEvalsSections(e.AskEvals)...)
	}
	if r.Plan != nil {
		out = append(out, r.planSections()...)
	}
	out = append(out, report.Section{Title: "Method", Level: 2, Paras: []string{
		fmt.Sprintf("Plain eval runs (no oracle stage) give the scores, the association and the attribution; one observation is one task of one run. "+
			"Tasks an eval could not run (infrastructure errors) are left out. Intervals are 95 %%: Wilson for rates, Woolf for odds ratios, "+
			"Newcombe's square-and-add for paired differences, the percentile bootstrap (%d resamples, fixed seed) for means: of whole repositories "+
			"with %d or more, else of tasks with the repositories pooled (an interval that speaks of these repositories only), "+
			"Wald from the observed information for regression coefficients; a per-repository figure from one repository has none (n/a), "+
			"nor has a mean with no spread to resample (a bootstrap over identical values would give a zero-width interval). "+
			"Fisher's exact p-values are Holm-adjusted over the stages tested; the intervals are not adjusted. "+
			"A stage whose correctness is defined by the task's success (%s) has a definitional association: shown, not tested, "+
			"left out of the regression and of rule 2. "+
			"Train-plan concludes from at least %d scored tasks; a blame share chooses only with %d or more failed runs charged; "+
			"the regression needs %d failures and %d successes per stage; sample sizes ask for %.0f %% power at %.0f %% over the stages tested.",
			stats.BootstrapReps, stats.MinClusterRepos, definitionalList(), MinObservations, MinCharged, EventsPerStage, EventsPerStage, 100*Power, 100*Alpha),
	}})
	return out
}

func (r *Report) scoreSections() []report.Section {
	e := r.Evidence
	scores := report.Section{Title: "Per-stage scores", Level: 2, Figures: r.figures(chartScores),
		Paras: []string{fmt.Sprintf("Right against ground truth with Wilson intervals; other metrics as the mean of repository means, each repository counting once, "+
			"with a bootstrap interval over repositories when there are %d or more, else over tasks (speaking of these repositories only). "+
			"Each row names its interval's method.", stats.MinClusterRepos)}}
	t := report.Table{Head: []string{"stage", "metric", "value", "95% CI", "interval method", "tasks", "repositories"}}
	for _, s := range e.Stages {
		if s.Correct != nil {
			t.Rows = append(t.Rows, []string{s.Stage, "right", pct(s.Correct.Value), ci(s.Correct.CI), methodWilson, fmt.Sprint(s.Correct.N), "—"})
		}
		for _, m := range s.Metrics {
			t.Rows = append(t.Rows, []string{s.Stage, m.Metric, num(m.Value), meanCICell(m), meanMethodCell(m), fmt.Sprint(m.Tasks), fmt.Sprint(m.Repos)})
		}
	}
	t.Rows = append(t.Rows, []string{EndToEnd, "success", pct(e.Success.Value), ci(e.Success.CI), methodWilson, fmt.Sprint(e.Success.N), fmt.Sprint(e.Repos)})
	scores.Tables = []report.Table{t}

	tested := 0
	assoc := report.Table{Head: []string{"stage", "failed when wrong", "failed when right", "odds ratio (95% Woolf CI, unadjusted)", "Fisher p", "Holm p",
		"significant (Holm p < 0.05, interval above 1)", "tasks needed"}}
	for _, s := range e.Stages {
		a := s.Association
		if a == nil {
			continue
		}
		if _, def := Definitional[s.Stage]; def {
			assoc.Rows = append(assoc.Rows, []string{s.Stage, assocCell(a.FailIf), assocCell(a.FailIfNot), "definitional, not evidence", "—", "—",
				"not tested: definitional", "—"})
			continue
		}
		tested++
		need := "—"
		switch {
		case s.TasksNeeded == nil:
		case *s.TasksNeeded > 1_000_000:
			need = "> 1,000,000"
		default:
			need = thousands(*s.TasksNeeded)
		}
		assoc.Rows = append(assoc.Rows, []string{s.Stage, assocCell(a.FailIf), assocCell(a.FailIfNot), orCell(a), pval(a.FisherP), pval(a.HolmP),
			significantCell(s), need})
	}
	association := report.Section{Title: "Association with end-to-end failure", Level: 2, Paras: []string{fmt.Sprintf(
		"P(fail | stage wrong) against P(fail | stage right), on plain-run tasks scored for the stage and with an outcome. Fisher's exact test, "+
			"Holm-adjusted over the %s tested; significant means Holm p < 0.05 with the odds ratio's interval above 1. "+
			"The interval is Woolf's, 95 %% for each stage alone (not adjusted for testing several) and approximate when a cell is small, "+
			"so it can exclude 1 where the adjusted test finds no significance: the test decides. "+
			"Tasks needed: scored tasks that would show the difference observed (80 %% power).", plural(tested, "stage"))}}
	if def := r.definitionalStages(); len(def) > 0 {
		association.Paras = append(association.Paras, definitionalNote(def))
	}
	if len(assoc.Rows) > 0 {
		association.Tables = []report.Table{assoc}
	} else {
		association.Paras = append(association.Paras, "No stage was both right and wrong in tasks with an outcome.")
	}
	reg := report.Section{Title: "Logistic regression", Level: 3, Paras: []string{"End-to-end failure on the stages' wrong-output indicators together, " +
		"so each stage's odds ratio is adjusted for the others; stages wrong by definition when the task fails are left out."}}
	if e.Regression.Fitted {
		t := report.Table{Head: []string{"term", "coefficient", "SE", "95% Wald CI", "odds ratio (95% Wald CI)"}}
		for _, c := range e.Regression.Coefficients {
			t.Rows = append(t.Rows, []string{c.Term, num(c.Estimate), num(c.SE), fmt.Sprintf("%s to %s", num(c.CI.Lo), num(c.CI.Hi)),
				fmt.Sprintf("%s (%s–%s)", num(c.OddsRatio), num(exp(c.CI.Lo)), num(exp(c.CI.Hi)))})
		}
		reg.Tables = []report.Table{t}
		reg.Paras = append(reg.Paras, fmt.Sprintf("Fitted on %s.", plural(e.Regression.Observations, "task")))
	} else {
		reg.Paras = append(reg.Paras, upperFirst(e.Regression.Reason)+".")
	}
	return []report.Section{scores, association, reg}
}

// significantCell says whether a tested stage is significant, and why not
// when its unadjusted interval alone would suggest it is.
func significantCell(s StageEvidence) string {
	a := s.Association
	switch {
	case s.Significant:
		return "yes"
	case a.HolmP >= Alpha && a.ORCI.Lo > 1:
		return fmt.Sprintf("no: Holm p %s ≥ 0.05 (the interval is unadjusted)", pval(a.HolmP))
	case a.HolmP < Alpha && a.ORCI.Hi < 1:
		return "no: wrong goes with success"
	case a.HolmP < Alpha:
		return "no: the interval holds 1"
	}
	return "no"
}

func (r *Report) attributionSections() []report.Section {
	e := r.Evidence
	attr := report.Section{Title: "First-error attribution", Level: 2, Figures: r.figures(chartBlame), Paras: []string{fmt.Sprintf(
		"Each failed run is charged to the earliest stage, in pipeline order (%s: the stages the evals scored), whose output was wrong against ground truth; "+
			"failed runs with no wrong stage are unattributed. %s.", strings.Join(scoredStages(e), " → "), upperFirst(plural(e.Failures, "failed run")))}}
	if def := r.definitionalStages(); len(def) > 0 {
		attr.Paras = append(attr.Paras, fmt.Sprintf("A failed run is charged to %s whenever no earlier stage was wrong: %s is wrong in every failed run by definition, "+
			"so its share is what the earlier stages leave.", strings.Join(def, ", "), strings.Join(def, ", ")))
	}
	t := report.Table{Head: []string{"stage", "failed runs charged", "share (95% Wilson CI)"}}
	for _, s := range e.Stages {
		t.Rows = append(t.Rows, []string{s.Stage, fmt.Sprint(s.Blame.K), fmt.Sprintf("%s (%s)", pct(s.Blame.Value), ci(s.Blame.CI))})
	}
	t.Rows = append(t.Rows, []string{"unattributed", fmt.Sprint(e.Unattributed.K), fmt.Sprintf("%s (%s)", pct(e.Unattributed.Value), ci(e.Unattributed.CI))})
	attr.Tables = []report.Table{t}

	lift := report.Section{Title: "Oracle lift", Level: 2, Figures: r.figures(chartLift), Paras: []string{
		"An oracle eval replaces the named stages' output by ground truth; on the same tasks as a plain run, the paired difference in end-to-end success is their causal lift (Newcombe's interval)."}}
	if len(e.Lifts) == 0 {
		lift.Paras = append(lift.Paras, "No oracle evals yet: run `cra eval` with oracle stages on the tasks of a plain eval to measure each stage's lift.")
	} else {
		t := report.Table{Head: []string{"oracle stages", "eval", "paired tasks", "success with oracle", "success without", "lift (95% Newcombe CI)"}}
		for _, l := range e.Lifts {
			t.Rows = append(t.Rows, []string{strings.Join(l.Oracle, " + "), l.EvalName, fmt.Sprint(l.Pairs), pct(l.WithOracle.Value), pct(l.Without.Value), liftCell(&l)})
		}
		lift.Tables = []report.Table{t}
	}

	repos := report.Section{Title: "Failure rate by repository", Level: 2, Figures: r.figures(chartRepos)}
	rt := report.Table{Head: []string{"repository", "failed", "rate (95% Wilson CI)"}}
	for _, f := range e.RepoFailures {
		rt.Rows = append(rt.Rows, []string{f.Repo, fmt.Sprintf("%d of %d", f.Failure.K, f.Failure.N), repoRateCell(f)})
	}
	if len(rt.Rows) > 0 {
		repos.Tables = []report.Table{rt}
	} else {
		repos.Paras = []string{"No scored task has an end-to-end outcome."}
	}

	trend := report.Section{Title: "Scores over eval runs", Level: 2, Figures: r.figures(chartTrend),
		Paras: []string{"Share right per stage in each plain eval run, oldest first (the figures alone: the intervals are in the tables above)."}}
	if len(e.Trend) == 1 {
		trend.Paras = append(trend.Paras, "One plain eval run so far: a trend needs two, so the chart shows its points alone.")
	}
	stages := scoredStages(e)
	tt := report.Table{Head: append(append([]string{"eval run", "started"}, stages...), "end-to-end success")}
	for _, p := range e.Trend {
		row := []string{fmt.Sprintf("%s (#%d)", p.Name, p.EvalRunID), p.StartedAt.UTC().Format("2006-01-02")}
		for _, s := range stages {
			if c, ok := p.Correct[s]; ok {
				row = append(row, pct(c.Value))
			} else {
				row = append(row, "—")
			}
		}
		if p.Success != nil {
			row = append(row, pct(p.Success.Value))
		} else {
			row = append(row, "—")
		}
		tt.Rows = append(tt.Rows, row)
	}
	trend.Tables = []report.Table{tt}
	return []report.Section{attr, lift, repos, trend}
}

func (r *Report) solveSection() report.Section {
	s := r.Evidence.Solve
	sec := report.Section{Title: "Logged solve runs (weaker evidence)", Level: 2, Paras: []string{
		"These runs have no ground truth: they show what went with failure, not which stage was wrong. They never choose the target."}}
	if s == nil {
		sec.Paras = append(sec.Paras, "No finished `cra solve` runs in the window.")
		return sec
	}
	sec.Paras = append(sec.Paras, fmt.Sprintf("%s, %d not complete. Odds ratios with 95 %% Woolf intervals (* 0.5 added to every cell for a zero cell), "+
		"Fisher's exact p unadjusted.", upperFirst(plural(s.Runs, "run")), s.Failed))
	if a := s.ScopeDroppedTouched; a != nil {
		sec.Paras = append(sec.Paras, fmt.Sprintf("Scope left out a file the final diff touched in %s: they failed %s, the others %s (odds ratio %s, Fisher p %s).",
			plural(s.DroppedTouchedRuns, "run"), assocCell(a.FailIf), assocCell(a.FailIfNot), orCell(a), pval(a.FisherP)))
	} else {
		sec.Paras = append(sec.Paras, fmt.Sprintf("Scope left out a file the final diff touched in %s.", plural(s.DroppedTouchedRuns, "run")))
	}
	retry := fmt.Sprintf("%s, %.2f attempts per step.", upperFirst(plural(s.Steps, "implement step")), s.AttemptsPerStep)
	if a := s.Retried; a != nil {
		retry += fmt.Sprintf(" Runs with a retried step failed %s, the others %s (odds ratio %s, Fisher p %s).",
			assocCell(a.FailIf), assocCell(a.FailIfNot), orCell(a), pval(a.FisherP))
	}
	adjust := "No adjustment passes."
	if s.Adjustments > 0 {
		adjust = fmt.Sprintf("%s, %s of them failed.", upperFirst(plural(s.Adjustments, "adjustment pass")), pct(s.AdjustmentsFailed.Value))
	}
	sec.Paras = append(sec.Paras, retry, adjust)
	t := report.Table{Head: []string{"pass type", "passes", "failed (95% Wilson CI)"}}
	for _, p := range s.PassFailures {
		t.Rows = append(t.Rows, []string{p.PassType, fmt.Sprint(p.Failed.N), fmt.Sprintf("%s (%s)", pct(p.Failed.Value), ci(p.Failed.CI))})
	}
	sec.Tables = []report.Table{t}
	return sec
}

func (r *Report) planSections() []report.Section {
	p := r.Plan
	ds := p.DataSource
	source := ds.Source
	if len(ds.Chosen) > 1 {
		source += " (" + strings.Join(ds.Chosen, " + ") + ")"
	}
	data := fmt.Sprintf("Data: **%s**, %s, %d in train. Available for %s: synthetic %d, logged %d (%d from runs that succeeded), distilled %d.",
		source, plural(ds.Examples, "example"), ds.TrainExamples, p.TargetStage, ds.Available["synthetic"], ds.Available["logged"],
		ds.Available["logged_positive"], ds.Available["distilled"])
	if ds.Note != "" {
		data += " " + upperFirst(ds.Note) + "."
	}
	crit, _ := json.MarshalIndent(p.DataCriteria, "", "  ")
	h := p.Hyperparameters
	hyper := report.Table{Head: []string{"LoRA rank", "alpha", "dropout", "learning rate", "epochs", "batch", "steps", "warmup"},
		Rows: [][]string{{fmt.Sprint(h.LoRARank), fmt.Sprint(h.LoRAAlpha), fmt.Sprint(h.LoRADropout), fmt.Sprintf("%g", h.LearningRate),
			fmt.Sprint(h.Epochs), fmt.Sprint(h.BatchSize), fmt.Sprint(h.Steps), fmt.Sprint(h.WarmupRatio)}}}
	targets := report.Table{Head: []string{"stage", "metric", "now (95% Wilson CI)", "target", "basis"}}
	for _, t := range p.ImprovementTargets {
		targets.Rows = append(targets.Rows, []string{t.Stage, t.Metric, fmt.Sprintf("%s (%s)", pct(t.Now), ci(t.NowCI)), pct(t.Target), t.Basis})
	}
	return []report.Section{
		{Title: "Training plan", Level: 2, Paras: []string{
			fmt.Sprintf("Plan %d: train the **%s** stage on the **%s** model role.", p.PlanID, p.TargetStage, p.BaseModel), data,
			"Build the dataset with `cra curate-data --training-plan plan.json --name " + p.TargetStage + "` (plan.json is beside this report); these are its data criteria:"},
			Code: string(crit)},
		{Title: "Hyperparameters", Level: 3, Tables: []report.Table{hyper}, Paras: []string{fmt.Sprintf("For %s: %s.", plural(h.Examples, "train example"), h.Basis)}},
		{Title: "Improvement targets", Level: 3, Tables: []report.Table{targets}, Paras: []string{"Check them with `cra eval` once the adapter is trained."}},
	}
}

// repoRateCell is a repository's failure rate with its interval, or with
// why it has none.
func repoRateCell(f RepoFailure) string {
	if !f.Failure.CI.Known() {
		return fmt.Sprintf("%s (%s)", pct(f.Failure.Value), f.Note)
	}
	return fmt.Sprintf("%s (%s)", pct(f.Failure.Value), ci(f.Failure.CI))
}

func ci(iv stats.Interval) string { return fmt.Sprintf("%s–%s %%", pct1(iv.Lo), pct1(iv.Hi)) }

// plural is "1 repository", "2 repositories", "3 eval runs", "0 successes".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	switch {
	case strings.HasSuffix(noun, "y"):
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	case strings.HasSuffix(noun, "s"):
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// thousands writes n with thousands separators.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Findings is the computed part of the report the narrative is written
// from: the decision, the ranked stages, the oracle lifts and the solve
// runs, as Markdown.
func Findings(r *Report) string {
	var keep []report.Section
	for _, s := range r.sections() {
		switch s.Title {
		case "Decision", "Warnings", adaptersTitle, "Stages ranked", "Oracle lift", "Logged solve runs (weaker evidence)", "Training plan", "Improvement targets":
			keep = append(keep, s)
		}
	}
	return report.MarkdownSections(keep...)
}
