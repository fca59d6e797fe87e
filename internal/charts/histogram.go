package charts

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Bin is one bar of a histogram: Count values in [Lo, Hi).
type Bin struct{ Lo, Hi, Count float64 }

// Limit is a value a histogram is drawn against (a budget, a maximum): a
// dashed vertical line, named in the legend above the plot, when it is in
// reach of the bins (LimitInReach; the x axis widens to take it in);
// further out, only named in the legend with the side it lies on, so it
// does not squeeze the bins into a few bars at one end.
type Limit struct {
	X     float64
	Label string
	Color color.Color
}

// Histogram draws bins counted elsewhere (a GROUP BY in the store, so a
// histogram of millions of values never holds them) and the limits to
// read them against.
func Histogram(p *plot.Plot, bins []Bin, c color.Color, limits ...Limit) error {
	if len(bins) == 0 {
		EmptyAxes(p)
		return nil
	}
	h := &plotter.Histogram{FillColor: c, Width: bins[0].Hi - bins[0].Lo,
		LineStyle: draw.LineStyle{Color: color.White, Width: vg.Points(0.5)}}
	for _, b := range bins {
		if b.Hi <= b.Lo {
			return fmt.Errorf("histogram bin [%g, %g) is empty", b.Lo, b.Hi)
		}
		h.Bins = append(h.Bins, plotter.HistogramBin{Min: b.Lo, Max: b.Hi, Weight: b.Count})
	}
	p.Add(h)
	var legend Legend
	lo, hi := bins[0].Lo, bins[len(bins)-1].Hi
	for _, l := range limits {
		switch {
		case LimitInReach(lo, hi, l.X):
			v := &vline{x: l.X, style: draw.LineStyle{Color: l.Color, Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}}
			p.Add(v)
			legend.Add(l.Label, v)
		case l.X < lo:
			legend.Add("← " + l.Label + ": left of this scale")
		default:
			legend.Add(l.Label + ": right of this scale →")
		}
	}
	legend.Place(p)
	CountAxis(p)
	p.X.Tick.Marker = roundTicks(NiceWidth(max(p.X.Max-p.X.Min, 1), 5))
	return nil
}

// LimitReach is how far past a histogram's last bin, as a share of the
// bins' range, a limit is still drawn as a line.
const LimitReach = 0.25

// LimitInReach says whether Histogram draws a limit at x over bins from
// lo to hi as a line: inside them, or at most LimitReach of their range
// past the last.
func LimitInReach(lo, hi, x float64) bool {
	return x >= lo && x <= hi+LimitReach*(hi-lo)
}

// NiceWidth is the smallest of 1, 2 or 5 times a power of ten that is at
// least span/n: a bin width that cuts [0, span] into at most n bins with
// round edges.
func NiceWidth(span float64, n int) float64 {
	if span <= 0 || n < 1 {
		return 1
	}
	raw := span / float64(n)
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if w := m * pow; w >= raw {
			return max(1, w)
		}
	}
	return max(1, 10*pow)
}

// vline is a dashed vertical line across the plot.
type vline struct {
	x     float64
	style draw.LineStyle
}

func (l *vline) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(l.x)
	c.StrokeLine2(l.style, x, c.Min.Y, x, c.Max.Y)
}

// DataRange widens the x axis to show the line and leaves y alone.
func (l *vline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return l.x, l.x, math.Inf(1), math.Inf(-1)
}

func (l *vline) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	c.StrokeLine2(l.style, x, c.Min.Y, x, c.Max.Y)
}
