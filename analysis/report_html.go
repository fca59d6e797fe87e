package analysis

import "github.com/cra-dev/cra/internal/report"

// HTML renders the report as one self-contained page (report.html): inline
// CSS and SVG charts, nothing fetched, well-formed XML as well as HTML.
func HTML(r *Report) ([]byte, error) { return report.HTML(r.document()) }

// figures are the charts ids names, each with its caption and drawn on the
// page only; a chart with nothing to draw is left out (the section's text
// says there is nothing yet: a blank frame would only take room).
func (r *Report) figures(ids ...string) []report.Figure {
	var out []report.Figure
	for _, id := range ids {
		if r.hasData(id) {
			out = append(out, report.Figure{ID: id, Caption: r.caption(id), Draw: func() ([]byte, error) { return r.chart(id) }})
		}
	}
	return out
}
