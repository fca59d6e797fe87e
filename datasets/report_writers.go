package datasets

import "github.com/cra-dev/cra/internal/report"

// reportMarkdown renders the report as Markdown (report.md); the charts
// are the HTML page's alone.
func reportMarkdown(r *versionReport) string { return report.Markdown(r.document()) }

// reportHTML renders the report as one self-contained page (report.html):
// inline CSS and SVG charts, nothing fetched, well-formed XML as well as
// HTML.
func reportHTML(r *versionReport) ([]byte, error) { return report.HTML(r.document()) }

// document is the report both writers render. A figure's caption borrows
// the byline's muted style.
func (r *versionReport) document() report.Document {
	return report.Document{Title: r.title(), Byline: r.byline(), Sections: r.sections(), MutedCaptions: true}
}

// figures are the charts ids names, each with its caption and drawn on the
// page only.
func (r *versionReport) figures(ids ...string) []report.Figure {
	out := make([]report.Figure, len(ids))
	for i, id := range ids {
		out[i] = report.Figure{ID: id, Caption: r.chartCaption(id), Draw: func() ([]byte, error) { return r.chart(id) }}
	}
	return out
}
