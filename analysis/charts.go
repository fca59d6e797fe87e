package analysis

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/cra-dev/cra/internal/charts"
)

// The charts of the HTML report, by the id sections name them with.
const (
	chartScores = "scores"
	chartBlame  = "blame"
	chartLift   = "lift"
	chartRepos  = "repos"
	chartTrend  = "trend"
)

// Charts lists every chart id; the HTML report holds one SVG per chart.
var Charts = []string{chartScores, chartBlame, chartLift, chartRepos, chartTrend}

// trendDodge is how far apart, in runs, the trend chart draws the stages'
// points of one run.
const trendDodge = 0.05

// maxRepoBars keeps the repository chart readable: the worst ones.
const maxRepoBars = 20

// chart draws chart id of the report as an SVG element for inline use.
func (r *Report) chart(id string) ([]byte, error) {
	var p *plot.Plot
	var err error
	switch id {
	case chartScores:
		p, err = r.scoresChart()
	case chartBlame:
		p, err = r.blameChart()
	case chartLift:
		p, err = r.liftChart()
	case chartRepos:
		p, err = r.reposChart()
	case chartTrend:
		p, err = r.trendChart()
	default:
		return nil, fmt.Errorf("no chart %q", id)
	}
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", id, err)
	}
	return charts.InlineSVG(p)
}

func (r *Report) scoresChart() (*plot.Plot, error) {
	p := charts.New("Share right against ground truth (95 % Wilson interval)", "share right")
	pts, names := &charts.Points{}, []string{}
	for _, s := range r.Evidence.Stages {
		if s.Correct != nil {
			pts.Add(s.Correct.Value, s.Correct.CI.Lo, s.Correct.CI.Hi)
			names = append(names, s.Stage)
		}
	}
	if succ := r.Evidence.Success; succ.N > 0 {
		pts.Add(succ.Value, succ.CI.Lo, succ.CI.Hi)
		names = append(names, "end-to-end")
	}
	charts.UnitAxis(p)
	return p, charts.Bars(p, pts, names, charts.BarColor)
}

func (r *Report) blameChart() (*plot.Plot, error) {
	p := charts.New(fmt.Sprintf("Blame share: earliest wrong stage of %s (95 %% Wilson interval)", plural(r.Evidence.Failures, "failed run")),
		"share of failed runs")
	pts, names := &charts.Points{}, []string{}
	if r.Evidence.Failures > 0 {
		for _, s := range r.Evidence.Stages {
			pts.Add(s.Blame.Value, s.Blame.CI.Lo, s.Blame.CI.Hi)
			names = append(names, s.Stage)
		}
		u := r.Evidence.Unattributed
		pts.Add(u.Value, u.CI.Lo, u.CI.Hi)
		names = append(names, "unattributed")
	}
	charts.UnitAxis(p)
	return p, charts.Bars(p, pts, names, charts.WarnColor)
}

func (r *Report) liftChart() (*plot.Plot, error) {
	p := charts.New("Oracle lift of end-to-end success (95 % Newcombe interval)", "lift (percentage points)")
	pts, names := &charts.Points{}, []string{}
	for _, l := range r.Evidence.Lifts {
		pts.Add(l.Lift, l.CI.Lo, l.CI.Hi)
		names = append(names, joinPlus(l.Oracle))
	}
	if pts.Len() == 0 {
		p.Y.Label.Text = ""
		charts.EmptyAxes(p)
		return p, nil
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	s.GlyphStyle.Shape, s.GlyphStyle.Radius, s.GlyphStyle.Color = draw.CircleGlyph{}, vg.Points(4), charts.BarColor
	e, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return nil, err
	}
	zero := plotter.NewFunction(func(float64) float64 { return 0 })
	zero.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(zero, e, s)
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(pts.Len())-0.5
	lo, hi := min(-0.1, minOf(pts.Lo)), max(0.1, maxOf(pts.Hi))
	step := charts.NiceWidth(100*(hi-lo), 5) / 100 // whole percentage points
	// The axis ends on ticks, so no whisker touches the frame.
	p.Y.Min, p.Y.Max = math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	p.Y.Tick.Marker = zeroTicks{step}
	return p, nil
}

// zeroTicks marks a lift axis every step, always at 0 (the no-lift line
// every interval is read against), labelled in signed percentage points.
type zeroTicks struct{ step float64 }

func (z zeroTicks) Ticks(lo, hi float64) []plot.Tick {
	step := z.step
	var ticks []plot.Tick
	for k := math.Ceil(lo / step); k*step <= hi+1e-9; k++ {
		v := k * step
		label := fmt.Sprintf("%+.0f", 100*v)
		if k == 0 {
			v, label = 0, "0"
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: label})
	}
	return ticks
}

func (r *Report) reposChart() (*plot.Plot, error) {
	fails := r.Evidence.RepoFailures
	title := "End-to-end failure rate by repository (95 % Wilson interval)"
	if len(fails) > maxRepoBars {
		fails = fails[:maxRepoBars]
		title = fmt.Sprintf("End-to-end failure rate, the %d worst repositories (95 %% Wilson interval)", maxRepoBars)
	}
	pts, names := &charts.Points{}, []string{}
	known := true
	for _, f := range fails {
		if !f.Failure.CI.Known() {
			// One repository: its bar alone, without an interval.
			title = fmt.Sprintf("End-to-end failure rate by repository (interval %s)", f.Note)
			known = false
		}
		pts.Add(f.Failure.Value, f.Failure.CI.Lo, f.Failure.CI.Hi)
		names = append(names, filepath.Base(f.Repo))
	}
	p := charts.New(title, "failure rate")
	charts.UnitAxis(p)
	if len(names) > 6 {
		charts.TiltLabels(p)
	}
	if !known {
		return p, barsAlone(p, pts, names, charts.WarnColor)
	}
	return p, charts.Bars(p, pts, names, charts.WarnColor)
}

// barsAlone draws bars without intervals, for figures that have none:
// charts.Bars would draw a whisker of zero length, a bound at the value.
func barsAlone(p *plot.Plot, pts *charts.Points, names []string, c color.Color) error {
	b, err := plotter.NewBarChart(pts, vg.Points(24))
	if err != nil {
		return err
	}
	b.Color, b.LineStyle.Width = c, 0
	p.Add(b)
	p.NominalX(names...)
	return nil
}

// trendChart draws each stage's share right over the plain runs, a line
// per stage, with the legend in a band above the data; with one run there
// is no line to draw, so points alone, and the title says a trend needs two.
func (r *Report) trendChart() (*plot.Plot, error) {
	p := charts.New("Share right per stage over eval runs", "share right")
	charts.UnitAxis(p)
	runs := r.Evidence.Trend
	if len(runs) == 0 {
		charts.EmptyAxes(p)
		return p, nil
	}
	if len(runs) == 1 {
		p.Title.Text = "Share right per stage: one eval run (a trend needs two)"
	}
	names := make([]string, len(runs))
	for i, t := range runs {
		names[i] = fmt.Sprintf("#%d", t.EvalRunID)
	}
	var legend charts.Legend
	stages := scoredStages(r.Evidence)
	for i, stage := range stages {
		// Each stage a little aside of the run's tick, so stages with the
		// same share (two at 100 %) do not hide one another.
		dodge := (float64(i) - float64(len(stages)-1)/2) * trendDodge
		var xys plotter.XYs
		for x, t := range runs {
			if c, ok := t.Correct[stage]; ok {
				xys = append(xys, plotter.XY{X: float64(x) + dodge, Y: c.Value})
			}
		}
		if len(xys) == 0 {
			continue
		}
		s, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		s.Color, s.Shape = plotutil.Color(i), plotutil.Shape(i)
		s.Radius = vg.Points(3.5)
		if len(xys) == 1 {
			p.Add(s)
			legend.Add(stage, s)
			continue
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		l.Color = plotutil.Color(i)
		p.Add(l, s)
		legend.Add(stage, l, s)
	}
	legend.Place(p)
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(runs))-0.5
	p.X.Label.Text = "eval run (oldest first)"
	return p, nil
}

func joinPlus(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += "+"
		}
		out += x
	}
	return out
}

func minOf(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		m = min(m, x)
	}
	return m
}

func maxOf(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// hasData reports whether chart id has anything to draw: the HTML report
// leaves out a chart without data (the section's text says why).
func (r *Report) hasData(id string) bool {
	e := r.Evidence
	switch id {
	case chartScores:
		return len(e.Stages) > 0 || e.Success.N > 0
	case chartBlame:
		return e.Failures > 0
	case chartLift:
		return len(e.Lifts) > 0
	case chartRepos:
		return len(e.RepoFailures) > 0
	case chartTrend:
		return len(e.Trend) > 0
	}
	return false
}

// caption states, under each chart, what it plots and how its intervals
// were made, so no figure stands without its method.
func (r *Report) caption(id string) string {
	switch id {
	case chartScores:
		return "Bars: share of outputs right (end-to-end: tasks that succeeded); whiskers: 95 % Wilson score interval."
	case chartBlame:
		return "Bars: share of failed runs charged to the stage as their earliest wrong one; whiskers: 95 % Wilson score interval."
	case chartLift:
		return "Points: end-to-end success with the oracle stages minus without, on the same tasks; " +
			"whiskers: 95 % Newcombe square-and-add interval for paired proportions; dashed: no lift."
	case chartRepos:
		if len(r.Evidence.RepoFailures) == 1 {
			return "Bar: the one repository's failure rate, without an interval: with one repository there is nothing to compare it with " +
				"(the overall rate's Wilson interval is under Per-stage scores)."
		}
		return "Bars: share of the repository's tasks that failed; whiskers: 95 % Wilson score interval."
	case chartTrend:
		if len(r.Evidence.Trend) == 1 {
			return "Points: share right per stage in the one plain run, without intervals (the tables above give them); a trend needs two runs."
		}
		return "Points joined by lines: share right per stage in each plain run, without intervals (the tables above give them)."
	}
	return ""
}
