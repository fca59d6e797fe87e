package charts

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
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
// each category, with a legend above the plot when there is more than one
// series. Within a category only the series with a count take a place, and
// those places are centred on the category's tick: a category that lacks
// some series (a signal only one stage has) sits on its tick, not off to
// one side of it.
func GroupedBars(p *plot.Plot, names []string, series ...Series) error {
	if len(names) == 0 || len(series) == 0 {
		EmptyAxes(p)
		return nil
	}
	bars, err := layBars(len(names), series)
	if err != nil {
		return err
	}
	var legend Legend
	for i, b := range bars {
		p.Add(b)
		legend.Add(series[i].Name, b)
	}
	if len(series) > 1 {
		legend.Place(p)
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	CountAxis(p)
	return nil
}

// layBars places each series' bars: in each of n categories, the series
// with a count side by side, centred on the category.
func layBars(n int, series []Series) ([]*barSeries, error) {
	w := vg.Points(min(24, 42/float64(len(series))))
	bars := make([]*barSeries, len(series))
	for i, s := range series {
		if len(s.Values) != n {
			return nil, fmt.Errorf("series %q has %d values for %d categories", s.Name, len(s.Values), n)
		}
		bars[i] = &barSeries{values: s.Values, offsets: make([]vg.Length, n), width: w, color: s.Color}
		if bars[i].color == nil {
			bars[i].color = plotutil.Color(i)
		}
	}
	for cat := range n {
		var present []*barSeries
		for _, b := range bars {
			if b.values[cat] > 0 {
				present = append(present, b)
			}
		}
		for k, b := range present {
			b.offsets[cat] = vg.Length(float64(k)-float64(len(present)-1)/2) * w
		}
	}
	return bars, nil
}

// barSeries is one series of grouped bars: a bar per category with a
// count, each at its own offset from the category's tick.
type barSeries struct {
	values  []float64
	offsets []vg.Length
	width   vg.Length
	color   color.Color
}

func (b *barSeries) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for cat, v := range b.values {
		if v <= 0 {
			continue
		}
		x := trX(float64(cat)) + b.offsets[cat]
		lo, hi := x-b.width/2, x+b.width/2
		c.FillPolygon(b.color, c.ClipPolygonY([]vg.Point{{X: lo, Y: trY(0)}, {X: lo, Y: trY(v)}, {X: hi, Y: trY(v)}, {X: hi, Y: trY(0)}}))
	}
}

func (b *barSeries) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, float64(len(b.values) - 1), 0, slices.Max(b.values)
}

func (b *barSeries) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	c.FillPolygon(b.color, []vg.Point{r.Min, {X: r.Min.X, Y: r.Max.Y}, r.Max, {X: r.Max.X, Y: r.Min.Y}})
}

// CountAxis makes the y axis one of counts: from zero, whole-number
// ticks, and its top the first tick above the tallest value with a little
// clearance (5 %) — not room for a legend, which sits above the plot.
// Ticks are a round step cutting the axis into about 5; when that step
// would leave more than a quarter of the axis empty above the tallest
// value (10 on an axis to 15), the round step of about 10 is taken.
func CountAxis(p *plot.Plot) {
	top := p.Y.Max
	if math.IsInf(top, 0) || top < 1 {
		top = 1
	}
	top *= 1.05
	step := NiceWidth(top, 5)
	if math.Ceil(top/step)*step > 1.25*top {
		step = NiceWidth(top, 10)
	}
	p.Y.Min, p.Y.Max = 0, math.Ceil(top/step)*step
	p.Y.Tick.Marker = roundTicks(step)
}

// roundTicks marks every multiple of step (a whole number, from NiceWidth)
// with a whole-number label in thousands: "1,500", not "1500.00".
func roundTicks(step float64) plot.Ticker {
	return plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		var ticks []plot.Tick
		for v := math.Ceil(lo/step) * step; v <= hi; v += step {
			ticks = append(ticks, plot.Tick{Value: v, Label: thousands(int64(math.Round(v)))})
		}
		return ticks
	})
}

// thousands writes n with a comma between groups of three digits.
func thousands(n int64) string {
	if n < 0 {
		return "-" + thousands(-n)
	}
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
