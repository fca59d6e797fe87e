package analysis

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"strings"

	"github.com/cra-dev/cra/internal/charts"
)

// HTML renders the report as one self-contained page (report.html): inline
// CSS and SVG charts, nothing fetched, well-formed XML as well as HTML.
func HTML(r *Report) ([]byte, error) {
	var b bytes.Buffer
	charts.PageStart(&b, r.title(), charts.Inline(r.byline()))
	for _, s := range r.sections() {
		if err := writeSectionHTML(&b, r, s, ""); err != nil {
			return nil, err
		}
	}
	if n := r.Narrative; n != nil {
		if err := writeSectionHTML(&b, r, narrativeSection(n), "narrative"); err != nil {
			return nil, err
		}
	}
	charts.PageEnd(&b)
	return b.Bytes(), nil
}

func writeSectionHTML(b *bytes.Buffer, r *Report, s section, class string) error {
	attr := ""
	if class != "" {
		attr = fmt.Sprintf(" class=%q", class)
	}
	fmt.Fprintf(b, "<section%s>\n<h%d>%s</h%d>\n", attr, s.level, html.EscapeString(s.title), s.level)
	for _, p := range s.paras {
		fmt.Fprintf(b, "<p>%s</p>\n", charts.Inline(p))
	}
	if len(s.list) > 0 {
		b.WriteString("<ul>\n")
		for _, item := range s.list {
			fmt.Fprintf(b, "<li>%s</li>\n", charts.Inline(item))
		}
		b.WriteString("</ul>\n")
	}
	for _, id := range s.charts {
		if !r.hasData(id) {
			continue // the section's text says there is nothing yet; a blank frame would only take room
		}
		svg, err := r.chart(id)
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "<figure id=\"chart-%s\">\n%s<figcaption>%s</figcaption>\n</figure>\n", id, svg, charts.Inline(r.caption(id)))
	}
	for _, t := range s.tables {
		writeTableHTML(b, t)
	}
	if s.code != "" {
		fmt.Fprintf(b, "<pre><code>%s</code></pre>\n", html.EscapeString(s.code))
	}
	b.WriteString("</section>\n")
	return nil
}

func writeTableHTML(b *bytes.Buffer, t table) {
	b.WriteString("<div class=\"table\"><table>\n<thead><tr>")
	for _, h := range t.head {
		fmt.Fprintf(b, "<th>%s</th>", html.EscapeString(h))
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, row := range t.rows {
		class := ""
		if len(row) > 0 && strings.HasPrefix(row[len(row)-1], noteTarget) {
			class = ` class="target"`
		}
		fmt.Fprintf(b, "<tr%s>", class)
		for _, c := range row {
			fmt.Fprintf(b, "<td>%s</td>", keepUnits(charts.Inline(c)))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table></div>\n")
}

// unitRE matches the space between a figure and its unit.
var unitRE = regexp.MustCompile(`(\d) (%|pp\b)`)

// keepUnits keeps a figure and its unit on one line in a narrow column:
// "60.0 %" broke after the number.
func keepUnits(s string) string { return unitRE.ReplaceAllString(s, "$1&#160;$2") }
