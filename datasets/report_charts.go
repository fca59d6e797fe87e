package datasets

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"

	"github.com/cra-dev/cra/internal/charts"
	"github.com/cra-dev/cra/kb"
)

// maxRepoBars keeps the repository chart readable: the largest ones.
const maxRepoBars = 20

// chart draws chart id of the report as an SVG element for inline use.
func (r *versionReport) chart(id string) ([]byte, error) {
	var p *plot.Plot
	var err error
	switch {
	case id == chartExamples:
		p, err = r.examplesChart()
	case id == chartRepos:
		p, err = r.reposChart()
	case id == chartDrops:
		p, err = r.dropsChart()
	case id == chartSignals:
		p, err = r.signalsChart()
	case id == chartKTO:
		p, err = r.ktoChart()
	case strings.HasPrefix(id, chartTokens):
		p, err = r.tokensChart(strings.TrimPrefix(id, chartTokens))
	default:
		return nil, fmt.Errorf("no chart %q", id)
	}
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", id, err)
	}
	return charts.InlineSVG(p)
}

// chartCaption says under chart id what it counts and how. Every figure
// of the report is an exact count over the whole version, not a sample,
// so none carries an interval.
func (r *versionReport) chartCaption(id string) string {
	const exact = " Exact counts over the whole version: nothing is sampled, so no interval is drawn."
	switch {
	case id == chartExamples:
		return "Examples (rows) per stage, a bar per kind, train and validation together; the table splits them." + exact
	case id == chartRepos:
		what := "Examples per repository (`training_examples.repo_path`)"
		if len(r.repos) > maxRepoBars {
			what = fmt.Sprintf("Examples of the %d repositories with the most (`training_examples.repo_path`)", maxRepoBars)
		}
		return what + ", train and validation side by side." + exact
	case id == chartDrops:
		return "Candidates left out while the version was built, per reason (`dataset_versions.dropped`)." + exact
	case id == chartSignals:
		return "Preference pairs per signal that chose between the two answers, a bar per stage; a stage without pairs of a signal draws no bar there." + exact
	case id == chartKTO:
		return "KTO rows per stage, positive and negative side by side." + exact
	case strings.HasPrefix(id, chartTokens):
		return r.tokensCaption(strings.TrimPrefix(id, chartTokens))
	}
	return ""
}

// tokensCaption says what a stage's histogram counts, how its lengths are
// estimated, how it is binned and where the context window is.
func (r *versionReport) tokensCaption(stage string) string {
	i := slices.IndexFunc(r.tokens, func(s tokenStats) bool { return s.Stage == stage })
	if i < 0 {
		return ""
	}
	st := r.tokens[i]
	var b strings.Builder
	fmt.Fprintf(&b, "Examples per %s-token bin of prompt plus completion tokens, from this stage's shortest example (%s) to its longest (%s). "+
		"Tokens are curate's estimate, %s, not a tokenizer's count.",
		reportCount(st.width), reportCount(st.Min), reportCount(st.Max), r.tokenEstimate())
	switch {
	case r.windowShown(st):
		fmt.Fprintf(&b, " The dashed line is the context window (%s tokens).", reportCount(r.window))
	case r.window < st.lo:
		fmt.Fprintf(&b, " The context window (%s tokens) lies left of this scale: every example of the stage is longer.", reportCount(r.window))
	case r.window > 0:
		fmt.Fprintf(&b, " The context window (%s tokens, %.1f× the longest example) lies too far right to draw on this scale.",
			reportCount(r.window), float64(r.window)/float64(max(st.Max, 1)))
	}
	return b.String()
}

// examplesChart is examples per stage, a bar per kind.
func (r *versionReport) examplesChart() (*plot.Plot, error) {
	p := charts.New("Examples per stage and kind", "examples")
	var stages []string
	for _, c := range r.stageKinds {
		if !slices.Contains(stages, c.stage) {
			stages = append(stages, c.stage)
		}
	}
	var series []charts.Series
	for _, kind := range kb.ExampleKinds {
		s := charts.Series{Name: kind, Values: make([]float64, len(stages))}
		seen := false
		for _, c := range r.stageKinds {
			if c.kind == kind {
				s.Values[slices.Index(stages, c.stage)] = float64(c.total())
				seen = true
			}
		}
		if seen {
			series = append(series, s)
		}
	}
	tiltIfCrowded(p, stages)
	return p, charts.GroupedBars(p, stages, series...)
}

func (r *versionReport) reposChart() (*plot.Plot, error) {
	repos, title := r.repos, "Examples per repository"
	if len(repos) > maxRepoBars {
		repos, title = repos[:maxRepoBars], fmt.Sprintf("Examples, the %d largest repositories", maxRepoBars)
	}
	p := charts.New(title, "examples")
	names := make([]string, len(repos))
	train, val := charts.Series{Name: kb.SplitTrain, Color: charts.BarColor}, charts.Series{Name: kb.SplitValidation}
	for i, c := range repos {
		names[i] = filepath.Base(c.key)
		train.Values, val.Values = append(train.Values, float64(c.train)), append(val.Values, float64(c.val))
	}
	tiltIfCrowded(p, names)
	return p, charts.GroupedBars(p, names, train, val)
}

func (r *versionReport) dropsChart() (*plot.Plot, error) {
	p := charts.New("Candidates dropped per reason", "dropped")
	reasons := r.dropReasons()
	s := charts.Series{Name: "dropped", Color: charts.WarnColor}
	for _, reason := range reasons {
		s.Values = append(s.Values, float64(r.info.Dropped[reason]))
	}
	tiltIfCrowded(p, reasons)
	return p, charts.GroupedBars(p, reasons, s)
}

// signalsChart is preference pairs per signal, a bar per stage.
func (r *versionReport) signalsChart() (*plot.Plot, error) {
	p := charts.New("Preference pairs per signal and stage", "pairs")
	var signals, stages []string
	for _, l := range r.labels {
		if l.kind != kb.KindPreference {
			continue
		}
		if !slices.Contains(signals, reportOrNone(l.signal)) {
			signals = append(signals, reportOrNone(l.signal))
		}
		if !slices.Contains(stages, l.stage) {
			stages = append(stages, l.stage)
		}
	}
	slices.Sort(signals)
	if len(stages) == 1 { // no legend for one series: the title names its stage
		p.Title.Text = fmt.Sprintf("Preference pairs per signal, stage %s", stages[0])
	}
	var series []charts.Series
	for _, stage := range stages {
		s := charts.Series{Name: stage, Values: make([]float64, len(signals))}
		for _, l := range r.labels {
			if l.kind == kb.KindPreference && l.stage == stage {
				s.Values[slices.Index(signals, reportOrNone(l.signal))] += float64(l.n)
			}
		}
		series = append(series, s)
	}
	tiltIfCrowded(p, signals)
	return p, charts.GroupedBars(p, signals, series...)
}

func (r *versionReport) ktoChart() (*plot.Plot, error) {
	p := charts.New("KTO rows per stage by label", "rows")
	var stages []string
	pos := charts.Series{Name: kb.LabelPositive, Color: charts.BarColor}
	neg := charts.Series{Name: kb.LabelNegative, Color: charts.WarnColor}
	for _, b := range r.ktoBalance() {
		stages = append(stages, b.stage)
		pos.Values, neg.Values = append(pos.Values, float64(b.pos)), append(neg.Values, float64(b.neg))
	}
	tiltIfCrowded(p, stages)
	return p, charts.GroupedBars(p, stages, pos, neg)
}

// tokensChart is the histogram of one stage's token lengths over the
// stage's own range, with the context window as a line when it is near
// enough to draw (windowShown) and named on the x axis otherwise.
func (r *versionReport) tokensChart(stage string) (*plot.Plot, error) {
	i := slices.IndexFunc(r.tokens, func(s tokenStats) bool { return s.Stage == stage })
	if i < 0 {
		return nil, fmt.Errorf("no stage %q", stage)
	}
	st := r.tokens[i]
	title := fmt.Sprintf("%s: tokens per example", stage)
	if r.window > 0 {
		title = fmt.Sprintf("%s: tokens per example, %d over 90 %% of the window", stage, st.Over90)
	}
	p := charts.New(title, "examples")
	p.X.Label.Text = "prompt + completion tokens"
	bins := make([]charts.Bin, len(st.bins))
	for b, n := range st.bins {
		lo := st.lo + b*st.width
		bins[b] = charts.Bin{Lo: float64(lo), Hi: float64(lo + st.width), Count: float64(n)}
	}
	var limits []charts.Limit
	if r.window > 0 {
		limits = append(limits, charts.Limit{X: float64(r.window), Label: fmt.Sprintf("context window (%s)", reportCount(r.window)), Color: charts.WarnColor})
	}
	return p, charts.Histogram(p, bins, charts.BarColor, limits...)
}

// tiltIfCrowded slants the category names of a chart with many or long ones.
func tiltIfCrowded(p *plot.Plot, names []string) {
	long := slices.ContainsFunc(names, func(n string) bool { return len(n) > 12 })
	if len(names) > 6 || long {
		charts.TiltLabels(p)
	}
}
