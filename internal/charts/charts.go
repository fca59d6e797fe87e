package charts

import (
	"bytes"
	"image/color"
	"regexp"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The palette: BarColor for plain figures, WarnColor for failures, drops
// and negatives.
var (
	BarColor  = color.RGBA{R: 0x44, G: 0x77, B: 0xaa, A: 0xff}
	WarnColor = color.RGBA{R: 0xcc, G: 0x66, B: 0x44, A: 0xff}
	Sans      = font.Font{Typeface: "Liberation", Variant: "Sans"}
)

// New is a plot in the reports' font, with a grid.
func New(title, ylabel string) *plot.Plot {
	p := plot.New()
	for _, st := range []*text.Style{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle,
		&p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		st.Font.Typeface, st.Font.Variant = Sans.Typeface, Sans.Variant
	}
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	return p
}

// EmptyAxes gives a chart without data a sensible frame.
func EmptyAxes(p *plot.Plot) {
	p.Title.Text += " (no data yet)"
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	p.HideAxes()
}

// UnitAxis fixes the y axis to [0, 1], for shares.
func UnitAxis(p *plot.Plot) { p.Y.Min, p.Y.Max = 0, 1 }

// TiltLabels slants the x tick labels, for many or long category names.
func TiltLabels(p *plot.Plot) {
	p.X.Tick.Label.Rotation = 0.6
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
}

var (
	svgProlog = regexp.MustCompile(`(?s)\A.*?<svg`)
	svgAttrs  = regexp.MustCompile(`\s(?:width|height)="[^"]*"|\s+xmlns(?::xlink)?="[^"]*"`)
)

// InlineSVG renders p as an <svg> element to place in HTML: no XML
// prolog, no namespace declarations (HTML's parser supplies them) and no
// fixed size, so it scales to the page's width.
func InlineSVG(p *plot.Plot) ([]byte, error) {
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
