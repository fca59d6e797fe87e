package charts

import (
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Points are values with interval bounds, for bars and error bars.
type Points struct{ X, Y, Lo, Hi []float64 }

// Add appends a value y with its interval [lo, hi] at the next x.
func (p *Points) Add(y, lo, hi float64) {
	p.X = append(p.X, float64(len(p.X)))
	p.Y, p.Lo, p.Hi = append(p.Y, y), append(p.Lo, lo), append(p.Hi, hi)
}
func (p *Points) Len() int                        { return len(p.Y) }
func (p *Points) Value(i int) float64             { return p.Y[i] }
func (p *Points) XY(i int) (float64, float64)     { return p.X[i], p.Y[i] }
func (p *Points) YError(i int) (float64, float64) { return p.Y[i] - p.Lo[i], p.Hi[i] - p.Y[i] }

// Bars draws pts as bars with their intervals, labelled by names.
func Bars(p *plot.Plot, pts *Points, names []string, c color.Color) error {
	if pts.Len() == 0 {
		EmptyAxes(p)
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

// Series is one set of counts of grouped bars, one value per category.
type Series struct {
	Name   string
	Values []float64
	Color  color.Color // nil: the palette's colour for the series' place
}

// GroupedBars draws counts per category, the series side by side within
// each category, with a legend when there is more than one series.
func GroupedBars(p *plot.Plot, names []string, series ...Series) error {
	if len(names) == 0 || len(series) == 0 {
		EmptyAxes(p)
		return nil
	}
	n := float64(len(series))
	w := vg.Points(min(24, 42/n))
	for i, s := range series {
		b, err := plotter.NewBarChart(plotter.Values(s.Values), w)
		if err != nil {
			return err
		}
		b.Color, b.LineStyle.Width = s.Color, 0
		if b.Color == nil {
			b.Color = plotutil.Color(i)
		}
		b.Offset = vg.Length(float64(i)-(n-1)/2) * w
		p.Add(b)
		if len(series) > 1 {
			p.Legend.Add(s.Name, b)
		}
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	legend := 0
	if len(series) > 1 {
		legend = len(series)
	}
	CountAxis(p, legend)
	return nil
}

// CountAxis makes the y axis one of counts: from zero, whole-number
// ticks, and room above the tallest value for a legend of legendRows
// entries in the top right corner.
func CountAxis(p *plot.Plot, legendRows int) {
	legendTop(p)
	top := p.Y.Max
	if math.IsInf(top, 0) || top < 1 {
		top = 1
	}
	top *= 1.05 // the tallest bar clear of the frame
	if legendRows > 0 {
		top *= 1 + 0.12*float64(legendRows+1)
	}
	step := NiceWidth(top, 5)
	p.Y.Min, p.Y.Max = 0, math.Ceil(top/step)*step
	p.Y.Tick.Marker = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		var ticks []plot.Tick
		for v := math.Ceil(lo/step) * step; v <= hi; v += step {
			ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
		}
		return ticks
	})
}

// legendTop puts the legend in the top right corner in a smaller type.
func legendTop(p *plot.Plot) {
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(10)
}
