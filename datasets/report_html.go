package datasets

import (
	"bytes"
	"fmt"
	"html"

	"github.com/cra-dev/cra/internal/charts"
)

// reportHTML renders the report as one self-contained page (report.html):
// inline CSS and SVG charts, nothing fetched, well-formed XML as well as
// HTML.
func reportHTML(r *versionReport) ([]byte, error) {
	var b bytes.Buffer
	charts.PageStart(&b, r.title(), charts.Inline(r.byline()))
	for _, s := range r.sections() {
		fmt.Fprintf(&b, "<section>\n<h%d>%s</h%d>\n", s.level, html.EscapeString(s.title), s.level)
		for _, p := range s.paras {
			fmt.Fprintf(&b, "<p>%s</p>\n", charts.Inline(p))
		}
		if len(s.list) > 0 {
			b.WriteString("<ul>\n")
			for _, item := range s.list {
				fmt.Fprintf(&b, "<li>%s</li>\n", charts.Inline(item))
			}
			b.WriteString("</ul>\n")
		}
		// A figure's caption borrows the byline's muted style: the
		// stylesheet is shared with train-plan's report.
		for _, id := range s.charts {
			svg, err := r.chart(id)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(&b, "<figure id=\"chart-%s\">\n%s<figcaption class=\"byline\">%s</figcaption>\n</figure>\n",
				html.EscapeString(id), svg, charts.Inline(r.chartCaption(id)))
		}
		for _, t := range s.tables {
			writeReportTableHTML(&b, t)
		}
		for _, p := range s.notes {
			fmt.Fprintf(&b, "<p>%s</p>\n", charts.Inline(p))
		}
		if s.code != "" {
			fmt.Fprintf(&b, "<pre><code>%s</code></pre>\n", html.EscapeString(s.code))
		}
		b.WriteString("</section>\n")
	}
	charts.PageEnd(&b)
	return b.Bytes(), nil
}

func writeReportTableHTML(b *bytes.Buffer, t reportTable) {
	b.WriteString("<div class=\"table\"><table>\n<thead><tr>")
	for _, h := range t.head {
		fmt.Fprintf(b, "<th>%s</th>", html.EscapeString(h))
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, row := range t.rows {
		b.WriteString("<tr>")
		for _, c := range row {
			fmt.Fprintf(b, "<td>%s</td>", charts.Inline(c))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table></div>\n")
}
