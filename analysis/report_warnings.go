package analysis

import (
	"fmt"
	"strings"

	"github.com/cra-dev/cra/internal/report"
	"github.com/cra-dev/cra/internal/stats"
)

// FewTasks is the fewest tasks a rate or a cell of an association rests on
// before the report warns: with fewer, a 95 % interval around 50 % spans
// more than 50 points (Wilson's for 10 is 23.7–76.3 %), too wide to say much.
const FewTasks = 10

// methodWilson names a rate's interval in the tables.
const methodWilson = "Wilson"

// warningsSection lists what a reviewer would flag before trusting the
// figures: where the evidence is thin, where an interval and a test seem
// to disagree, and where an association says nothing by construction.
func (r *Report) warningsSection() report.Section {
	sec := report.Section{Title: "Warnings", Level: 2}
	sec.List = r.warnings()
	if len(sec.List) == 0 {
		sec.Paras = []string{"None: more than one repository, no definitional association, no interval resting on too few tasks."}
	} else {
		sec.Paras = []string{"What a reviewer would flag before trusting the figures below."}
	}
	return sec
}

// warnings are the report's warnings, most fundamental first.
func (r *Report) warnings() []string {
	e, d := r.Evidence, r.Decision
	var out []string
	switch {
	case e.Repos == 1:
		repo := ""
		if len(e.RepoFailures) == 1 {
			repo = " (" + e.RepoFailures[0].Repo + ")"
		}
		out = append(out, fmt.Sprintf("**One repository only**%s: every figure speaks of its tasks alone, and nothing here says how another "+
			"repository would fare; means are bootstrapped over its tasks and the per-repository rate has no interval. Evaluate more repositories.", repo))
	case e.Repos > 1 && e.Repos < stats.MinClusterRepos:
		out = append(out, fmt.Sprintf("**Only %d repositories**: means are bootstrapped over tasks, not repositories (that needs %d), "+
			"so their intervals speak of these repositories only.", e.Repos, stats.MinClusterRepos))
	}
	for _, stage := range r.definitionalStages() {
		a := e.Stage(stage).Association
		out = append(out, fmt.Sprintf("**Definitional association**: %s, so %s wrong means failed (%d of %d runs it got wrong failed, %d of %d it got right): "+
			"its odds ratio, however large, is an identity, not evidence. It is not tested, not in the regression and cannot be chosen by rule 2.",
			Definitional[stage], stage, a.FailIf.K, a.FailIf.N, a.FailIfNot.K, a.FailIfNot.N))
	}
	for _, s := range e.Stages {
		if _, def := Definitional[s.Stage]; def || s.Association == nil {
			continue
		}
		if a := s.Association; !s.Significant && a.HolmP >= Alpha && a.ORCI.Lo > 1 {
			out = append(out, fmt.Sprintf("**%s: interval and test differ**: the odds ratio's Woolf interval (%s–%s) excludes 1, but the Holm-adjusted "+
				"Fisher p is %s, so it is not significant. The interval is not adjusted for the stages tested and is approximate with small cells; "+
				"the test decides.", s.Stage, num(a.ORCI.Lo), num(a.ORCI.Hi), pval(a.HolmP)))
		}
	}
	out = append(out, r.fewTaskWarnings()...)
	for _, s := range e.Stages {
		for _, m := range s.Metrics {
			if m.CI.Known() && m.CI.Lo == m.CI.Hi {
				out = append(out, fmt.Sprintf("**%s %s has no interval**: %s, so a bootstrap has no spread to resample; "+
					"the figure says nothing of its uncertainty.", s.Stage, m.Metric, noSpread(m)))
			}
		}
	}
	if d.Status == StatusPlan && d.Rule == RuleBlameShare {
		out = append(out, fmt.Sprintf("**The target rests on association, not causation**: no oracle lift excluded zero, so rule 2 chose %s by its blame share. "+
			"An oracle eval of %s (`cra eval --oracle %s`) would measure what fixing it is worth.", d.Target, d.Target, d.Target))
	}
	if len(e.Trend) == 1 {
		out = append(out, "**One plain eval run**: there is no trend yet; it takes two runs.")
	}
	if p := r.Plan; p != nil && p.Hyperparameters.Examples == 0 {
		out = append(out, fmt.Sprintf("**The plan has no training examples** for %s: its dataset would be empty (see Training plan for what to do).", p.TargetStage))
	}
	return out
}

// fewTaskWarnings flags the figures resting on fewer than FewTasks tasks:
// a stage's share right, either side of an association, an oracle lift.
func (r *Report) fewTaskWarnings() []string {
	var out []string
	for _, s := range r.Evidence.Stages {
		if c := s.Correct; c != nil && c.N < FewTasks {
			out = append(out, fmt.Sprintf("**Too few tasks for an interval**: %s's share right rests on %s (%s).", s.Stage, plural(c.N, "task"), ci(c.CI)))
		}
		_, def := Definitional[s.Stage]
		if a := s.Association; a != nil && !def && min(a.FailIf.N, a.FailIfNot.N) < FewTasks {
			out = append(out, fmt.Sprintf("**Too few tasks for an interval**: %s's association rests on %s where it was wrong and %s where it was right; "+
				"its odds ratio's interval (%s–%s) says little.", s.Stage, plural(a.FailIf.N, "task"), plural(a.FailIfNot.N, "task"), num(a.ORCI.Lo), num(a.ORCI.Hi)))
		}
	}
	for _, l := range r.Evidence.Lifts {
		if l.Pairs < FewTasks {
			out = append(out, fmt.Sprintf("**Too few tasks for an interval**: the oracle lift of %s rests on %s.", joinPlus(l.Oracle), plural(l.Pairs, "paired task")))
		}
	}
	return out
}

// definitionalStages are the stages of the evidence whose association
// with failure is definitional, in pipeline order.
func (r *Report) definitionalStages() []string {
	var out []string
	for _, s := range r.Evidence.Stages {
		if _, def := Definitional[s.Stage]; def && s.Association != nil {
			out = append(out, s.Stage)
		}
	}
	return out
}

// definitionalNote explains, beside the association table, why the
// definitional rows carry no test.
func definitionalNote(stages []string) string {
	var why []string
	for _, s := range stages {
		why = append(why, Definitional[s])
	}
	return fmt.Sprintf("%s: definitional, not evidence (%s), so not tested and not counted among the stages Holm adjusts for.",
		upperFirst(strings.Join(stages, ", ")), strings.Join(why, "; "))
}

// definitionalList names the definitional stages for the method.
func definitionalList() string {
	return strings.Join(sortedKeys(Definitional), ", ")
}

// scoredStages are the stages the evidence has, in pipeline order: the
// ones every table shows and the text names.
func scoredStages(e *Evidence) []string {
	out := make([]string, 0, len(e.Stages))
	for _, s := range e.Stages {
		out = append(out, s.Stage)
	}
	return out
}

// meanCICell is a mean's interval, or n/a with why when the bootstrap had
// nothing to resample.
func meanCICell(m MetricMean) string {
	if m.CI.Known() && m.CI.Lo == m.CI.Hi {
		return "n/a: " + noSpread(m)
	}
	lo, hi := num(m.CI.Lo), num(m.CI.Hi)
	if lo == hi { // narrower than two decimals: show it, not "0.70–0.70"
		lo, hi = fmt.Sprintf("%.4f", m.CI.Lo), fmt.Sprintf("%.4f", m.CI.Hi)
	}
	return lo + "–" + hi
}

// noSpread says why a mean's bootstrap interval has zero width.
func noSpread(m MetricMean) string {
	switch {
	case m.Method == stats.MethodRepoBootstrap:
		return fmt.Sprintf("all %d repositories' means are %s", m.Repos, num(m.Value))
	case m.Repos == 1:
		return fmt.Sprintf("every task scored %s", num(m.Value))
	}
	return "each repository's tasks all scored alike"
}

// meanMethodCell says what a mean's bootstrap resampled.
func meanMethodCell(m MetricMean) string {
	switch m.Method {
	case stats.MethodRepoBootstrap:
		return fmt.Sprintf("bootstrap over %d repositories", m.Repos)
	case stats.MethodTaskBootstrap:
		if m.Repos == 1 {
			return "bootstrap over tasks of 1 repository (speaks of it only)"
		}
		return fmt.Sprintf("bootstrap over tasks of %d repositories (speaks of these only)", m.Repos)
	}
	return "—"
}
