package analysis

import (
	"fmt"
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
	p := charts.New(fmt.Sprintf("Blame share: earliest wrong stage of %d failed runs", r.Evidence.Failures), "share of failed runs")
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
	p := charts.New("Oracle lift of end-to-end success (95 % Newcombe interval)", "lift (success with oracle − without)")
	pts, names := &charts.Points{}, []string{}
	for _, l := range r.Evidence.Lifts {
		pts.Add(l.Lift, l.CI.Lo, l.CI.Hi)
		names = append(names, joinPlus(l.Oracle))
	}
	if pts.Len() == 0 {
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
	p.Y.Min, p.Y.Max = min(-0.1, minOf(pts.Lo)), max(0.1, maxOf(pts.Hi))
	return p, nil
}

func (r *Report) reposChart() (*plot.Plot, error) {
	fails := r.Evidence.RepoFailures
	title := "End-to-end failure rate by repository (95 % Wilson interval)"
	if len(fails) > maxRepoBars {
		fails = fails[:maxRepoBars]
		title = fmt.Sprintf("End-to-end failure rate, the %d worst repositories", maxRepoBars)
	}
	pts, names := &charts.Points{}, []string{}
	for _, f := range fails {
		if !f.Failure.CI.Known() {
			// One repository: its bar alone, without an interval.
			title = fmt.Sprintf("End-to-end failure rate by repository (interval %s)", f.Note)
			pts.Add(f.Failure.Value, f.Failure.Value, f.Failure.Value)
		} else {
			pts.Add(f.Failure.Value, f.Failure.CI.Lo, f.Failure.CI.Hi)
		}
		names = append(names, filepath.Base(f.Repo))
	}
	p := charts.New(title, "failure rate")
	charts.UnitAxis(p)
	if len(names) > 6 {
		charts.TiltLabels(p)
	}
	return p, charts.Bars(p, pts, names, charts.WarnColor)
}

func (r *Report) trendChart() (*plot.Plot, error) {
	p := charts.New("Share right per stage over eval runs", "share right")
	charts.UnitAxis(p)
	runs := r.Evidence.Trend
	if len(runs) == 0 {
		charts.EmptyAxes(p)
		return p, nil
	}
	names := make([]string, len(runs))
	for i, t := range runs {
		names[i] = fmt.Sprintf("#%d", t.EvalRunID)
	}
	for i, stage := range Stages {
		var xys plotter.XYs
		for x, t := range runs {
			if c, ok := t.Correct[stage]; ok {
				xys = append(xys, plotter.XY{X: float64(x), Y: c.Value})
			}
		}
		if len(xys) == 0 {
			continue
		}
		l, s, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		l.Color, s.Color, s.Shape = plotutil.Color(i), plotutil.Color(i), plotutil.Shape(i)
		p.Add(l, s)
		p.Legend.Add(stage, l, s)
	}
	p.Legend.Top, p.Legend.Left = false, true
	p.Legend.TextStyle.Font.Size = vg.Points(10)
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
