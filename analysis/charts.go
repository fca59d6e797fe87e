package analysis

import (
	"bytes"
	"fmt"
	"image/color"
	"path/filepath"
	"regexp"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
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

var (
	barColor  = color.RGBA{R: 0x44, G: 0x77, B: 0xaa, A: 0xff}
	warnColor = color.RGBA{R: 0xcc, G: 0x66, B: 0x44, A: 0xff}
	sans      = font.Font{Typeface: "Liberation", Variant: "Sans"}
)

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
	return inlineSVG(p)
}

// newPlot is a plot in the report's font, with a grid.
func newPlot(title, ylabel string) *plot.Plot {
	p := plot.New()
	for _, st := range []*text.Style{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle,
		&p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		st.Font.Typeface, st.Font.Variant = sans.Typeface, sans.Variant
	}
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	return p
}

// points are values with interval bounds, for bars and error bars.
type points struct{ x, y, lo, hi []float64 }

func (p *points) add(y, lo, hi float64) {
	p.x = append(p.x, float64(len(p.x)))
	p.y, p.lo, p.hi = append(p.y, y), append(p.lo, lo), append(p.hi, hi)
}
func (p *points) Len() int                        { return len(p.y) }
func (p *points) Value(i int) float64             { return p.y[i] }
func (p *points) XY(i int) (float64, float64)     { return p.x[i], p.y[i] }
func (p *points) YError(i int) (float64, float64) { return p.y[i] - p.lo[i], p.hi[i] - p.y[i] }

// bars draws pts as bars with their intervals, labelled by names.
func bars(p *plot.Plot, pts *points, names []string, c color.Color) error {
	if pts.Len() == 0 {
		emptyAxes(p)
		return nil
	}
	b, err := plotter.NewBarChart(pts, vg.Points(24))
	if err != nil {
		return err
	}
	b.Color, b.LineStyle.Width = c, 0
	e, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return err
	}
	p.Add(b, e)
	p.NominalX(names...)
	return nil
}

// emptyAxes gives a chart without data a sensible frame.
func emptyAxes(p *plot.Plot) {
	p.Title.Text += " (no data yet)"
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	p.HideAxes()
}

func unitAxis(p *plot.Plot) { p.Y.Min, p.Y.Max = 0, 1 }

func (r *Report) scoresChart() (*plot.Plot, error) {
	p := newPlot("Share right against ground truth (95 % Wilson interval)", "share right")
	pts, names := &points{}, []string{}
	for _, s := range r.Evidence.Stages {
		if s.Correct != nil {
			pts.add(s.Correct.Value, s.Correct.CI.Lo, s.Correct.CI.Hi)
			names = append(names, s.Stage)
		}
	}
	if succ := r.Evidence.Success; succ.N > 0 {
		pts.add(succ.Value, succ.CI.Lo, succ.CI.Hi)
		names = append(names, "end-to-end")
	}
	unitAxis(p)
	return p, bars(p, pts, names, barColor)
}

func (r *Report) blameChart() (*plot.Plot, error) {
	p := newPlot(fmt.Sprintf("Blame share: earliest wrong stage of %d failed runs", r.Evidence.Failures), "share of failed runs")
	pts, names := &points{}, []string{}
	if r.Evidence.Failures > 0 {
		for _, s := range r.Evidence.Stages {
			pts.add(s.Blame.Value, s.Blame.CI.Lo, s.Blame.CI.Hi)
			names = append(names, s.Stage)
		}
		u := r.Evidence.Unattributed
		pts.add(u.Value, u.CI.Lo, u.CI.Hi)
		names = append(names, "unattributed")
	}
	unitAxis(p)
	return p, bars(p, pts, names, warnColor)
}

func (r *Report) liftChart() (*plot.Plot, error) {
	p := newPlot("Oracle lift of end-to-end success (95 % Newcombe interval)", "lift (success with oracle − without)")
	pts, names := &points{}, []string{}
	for _, l := range r.Evidence.Lifts {
		pts.add(l.Lift, l.CI.Lo, l.CI.Hi)
		names = append(names, joinPlus(l.Oracle))
	}
	if pts.Len() == 0 {
		emptyAxes(p)
		return p, nil
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	s.GlyphStyle.Shape, s.GlyphStyle.Radius, s.GlyphStyle.Color = draw.CircleGlyph{}, vg.Points(4), barColor
	e, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return nil, err
	}
	zero := plotter.NewFunction(func(float64) float64 { return 0 })
	zero.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(zero, e, s)
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(pts.Len())-0.5
	p.Y.Min, p.Y.Max = min(-0.1, minOf(pts.lo)), max(0.1, maxOf(pts.hi))
	return p, nil
}

func (r *Report) reposChart() (*plot.Plot, error) {
	fails := r.Evidence.RepoFailures
	title := "End-to-end failure rate by repository (95 % Wilson interval)"
	if len(fails) > maxRepoBars {
		fails = fails[:maxRepoBars]
		title = fmt.Sprintf("End-to-end failure rate, the %d worst repositories", maxRepoBars)
	}
	p := newPlot(title, "failure rate")
	pts, names := &points{}, []string{}
	for _, f := range fails {
		pts.add(f.Failure.Value, f.Failure.CI.Lo, f.Failure.CI.Hi)
		names = append(names, filepath.Base(f.Repo))
	}
	unitAxis(p)
	if len(names) > 6 {
		p.X.Tick.Label.Rotation = 0.6
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	}
	return p, bars(p, pts, names, warnColor)
}

func (r *Report) trendChart() (*plot.Plot, error) {
	p := newPlot("Share right per stage over eval runs", "share right")
	unitAxis(p)
	runs := r.Evidence.Trend
	if len(runs) == 0 {
		emptyAxes(p)
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

var (
	svgProlog = regexp.MustCompile(`(?s)\A.*?<svg`)
	svgAttrs  = regexp.MustCompile(`\s(?:width|height)="[^"]*"|\s+xmlns(?::xlink)?="[^"]*"`)
)

// inlineSVG renders p as an <svg> element to place in HTML: no XML
// prolog, no namespace declarations (HTML's parser supplies them) and no
// fixed size, so it scales to the page's width.
func inlineSVG(p *plot.Plot) ([]byte, error) {
	c := vgsvg.New(16*vg.Centimeter, 8*vg.Centimeter)
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	out := svgProlog.ReplaceAll(buf.Bytes(), []byte("<svg"))
	head := bytes.Index(out, []byte(">"))
	tag := svgAttrs.ReplaceAll(out[:head], nil)
	return append(append(tag, ` role="img"`...), out[head:]...), nil
}
