package analysis

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// legendBand is a legend drawn in a band of its own between a chart's
// title and its data, entries side by side and flush right, wrapping past
// the data's width: gonum's legend sits inside the data area and covered
// the trend's points. (internal/charts grows the same idea for the
// dataset report; one of the two should go once both are merged.)
type legendBand struct {
	style   text.Style
	entries []legendEntry
	rows    [][]legendEntry
}

type legendEntry struct {
	name   string
	thumbs []plot.Thumbnailer
}

// Legend spacing, in points: a thumbnail, the gap to its name, between
// entries, between rows and under the band; bandWidth is the widest row
// (a report chart is 16 cm wide, less its y axis).
const (
	legendThumb    = 14
	legendTextGap  = 4
	legendEntryGap = 12
	legendRowGap   = 2
	legendBottom   = 6
	bandWidth      = 13 * vg.Centimeter
)

func (l *legendBand) add(name string, thumbs ...plot.Thumbnailer) {
	l.entries = append(l.entries, legendEntry{name, thumbs})
}

// place lays the entries out in rows, widens the gap under p's title by
// their height and adds the band to p.
func (l *legendBand) place(p *plot.Plot) {
	if len(l.entries) == 0 {
		return
	}
	l.style = p.Legend.TextStyle
	l.style.Font.Size = vg.Points(10)
	var row []legendEntry
	var width vg.Length
	for _, e := range l.entries {
		w := l.style.Rectangle(e.name).Max.X + legendThumb + legendTextGap
		if len(row) > 0 && width+legendEntryGap+w > bandWidth {
			l.rows, row, width = append(l.rows, row), nil, 0
		}
		if len(row) > 0 {
			width += legendEntryGap
		}
		row, width = append(row, e), width+w
	}
	l.rows = append(l.rows, row)
	n := vg.Length(len(l.rows))
	p.Title.Padding += n*l.rowHeight() + (n-1)*legendRowGap + legendBottom
	p.Add(l)
}

func (l *legendBand) rowHeight() vg.Length { return l.style.FontExtents().Height }

// Plot draws the rows above the data area c, the first on top, each flush
// with its right edge.
func (l *legendBand) Plot(c draw.Canvas, _ *plot.Plot) {
	h := l.rowHeight()
	descent := l.style.FontExtents().Descent
	for r, row := range l.rows {
		y := c.Max.Y + legendBottom + vg.Length(len(l.rows)-1-r)*(h+legendRowGap)
		x := c.Max.X
		for i := len(row) - 1; i >= 0; i-- {
			e := row[i]
			x -= l.style.Rectangle(e.name).Max.X
			c.FillText(l.style, vg.Point{X: x, Y: y + descent}, e.name)
			x -= legendTextGap + legendThumb
			thumb := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: x, Y: y + descent/2}, Max: vg.Point{X: x + legendThumb, Y: y + h - descent/2}}}
			for _, t := range e.thumbs {
				t.Thumbnail(&thumb)
			}
			x -= legendEntryGap
		}
	}
}
