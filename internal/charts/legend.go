package charts

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// legendWidth is the widest a legend row grows before it wraps: InlineSVG
// draws a chart 16 cm wide, less its y axis.
const legendWidth = 13 * vg.Centimeter

// Legend spacing: a thumbnail's width, the gap between it and its name,
// the gap between entries, between rows, and under the last row.
const (
	legendThumb    = 14
	legendTextGap  = 4
	legendEntryGap = 12
	legendRowGap   = 2
	legendBottom   = 6
)

// Legend is a legend drawn in a band of its own between a plot's title
// and its data, its entries side by side and flush right, wrapping onto
// another row past legendWidth. It never covers a bar, a line or a point
// (gonum's legend sits inside the data area), so the y axis keeps no room
// for it and a dashed limit near the right edge is not crossed by its own
// legend marker. Every report chart with a legend uses it: the dataset
// report's here, train-plan's in analysis.
type Legend struct {
	style   text.Style
	entries []legendEntry
	rows    [][]legendEntry // laid out by place
}

type legendEntry struct {
	name   string
	thumbs []plot.Thumbnailer // none: a note, its text alone
}

// Add appends an entry drawn with thumbs one over the other (a line and
// its points); with none, the entry is a note, its text alone.
func (l *Legend) Add(name string, thumbs ...plot.Thumbnailer) {
	l.entries = append(l.entries, legendEntry{name: name, thumbs: thumbs})
}

// Place lays the entries out in rows, widens the gap under p's title by
// their height (so it needs a title, as every report chart has) and adds
// the legend to p.
func (l *Legend) Place(p *plot.Plot) {
	if len(l.entries) == 0 {
		return
	}
	l.style = p.Legend.TextStyle
	l.style.Font.Size = vg.Points(10)
	var row []legendEntry
	var width vg.Length
	for _, e := range l.entries {
		w := l.entryWidth(e)
		if len(row) > 0 && width+legendEntryGap+w > legendWidth {
			l.rows, row, width = append(l.rows, row), nil, 0
		}
		if len(row) > 0 {
			width += legendEntryGap
		}
		row, width = append(row, e), width+w
	}
	l.rows = append(l.rows, row)
	p.Title.Padding += l.height()
	p.Add(l)
}

func (l *Legend) entryWidth(e legendEntry) vg.Length {
	w := l.style.Rectangle(e.name).Max.X
	if len(e.thumbs) > 0 {
		w += legendThumb + legendTextGap
	}
	return w
}

func (l *Legend) rowHeight() vg.Length { return l.style.FontExtents().Height }

// height is the band the legend takes: its rows and the gap under them.
func (l *Legend) height() vg.Length {
	n := vg.Length(len(l.rows))
	return n*l.rowHeight() + (n-1)*legendRowGap + legendBottom
}

// Plot draws the rows above the data area c, the first row on top, each
// flush with the data area's right edge.
func (l *Legend) Plot(c draw.Canvas, _ *plot.Plot) {
	h := l.rowHeight()
	descent := l.style.FontExtents().Descent
	for r, row := range l.rows {
		y := c.Max.Y + legendBottom + vg.Length(len(l.rows)-1-r)*(h+legendRowGap)
		x := c.Max.X
		for i := len(row) - 1; i >= 0; i-- {
			e := row[i]
			x -= l.style.Rectangle(e.name).Max.X
			c.FillText(l.style, vg.Point{X: x, Y: y + descent}, e.name)
			if len(e.thumbs) > 0 {
				x -= legendTextGap + legendThumb
				thumb := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
					Min: vg.Point{X: x, Y: y + descent/2}, Max: vg.Point{X: x + legendThumb, Y: y + h - descent/2}}}
				for _, t := range e.thumbs {
					t.Thumbnail(&thumb)
				}
			}
			x -= legendEntryGap
		}
	}
}
