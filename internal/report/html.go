package report

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
)

// HTML renders d as one self-contained page: inline stylesheet and SVG,
// nothing fetched, well-formed XML as well as HTML. An error is a figure
// that could not be drawn.
func HTML(d Document) ([]byte, error) {
	var b bytes.Buffer
	pageStart(&b, d.Title, inline(d.Byline))
	for _, s := range d.Sections {
		if err := writeSectionHTML(&b, d, s); err != nil {
			return nil, err
		}
	}
	pageEnd(&b)
	return b.Bytes(), nil
}

func writeSectionHTML(b *bytes.Buffer, d Document, s Section) error {
	attr := ""
	if s.Class != "" {
		attr = fmt.Sprintf(" class=%q", s.Class)
	}
	fmt.Fprintf(b, "<section%s>\n<h%d>%s</h%d>\n", attr, s.Level, html.EscapeString(s.Title), s.Level)
	for _, p := range s.Paras {
		fmt.Fprintf(b, "<p>%s</p>\n", inline(p))
	}
	if len(s.List) > 0 {
		b.WriteString("<ul>\n")
		for _, item := range s.List {
			fmt.Fprintf(b, "<li>%s</li>\n", inline(item))
		}
		b.WriteString("</ul>\n")
	}
	caption := "<figcaption>"
	if d.MutedCaptions {
		caption = `<figcaption class="byline">`
	}
	for _, f := range s.Figures {
		svg, err := f.Draw()
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "<figure id=\"chart-%s\">\n%s%s%s</figcaption>\n</figure>\n", html.EscapeString(f.ID), svg, caption, inline(f.Caption))
	}
	for _, t := range s.Tables {
		writeTableHTML(b, d, t)
	}
	for _, p := range s.Notes {
		fmt.Fprintf(b, "<p>%s</p>\n", inline(p))
	}
	if s.Code != "" {
		fmt.Fprintf(b, "<pre><code>%s</code></pre>\n", html.EscapeString(s.Code))
	}
	b.WriteString("</section>\n")
	return nil
}

func writeTableHTML(b *bytes.Buffer, d Document, t Table) {
	b.WriteString("<div class=\"table\"><table>\n<thead><tr>")
	for _, h := range t.Head {
		fmt.Fprintf(b, "<th>%s</th>", html.EscapeString(h))
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, row := range t.Rows {
		if t.Highlight != nil && t.Highlight(row) {
			b.WriteString(`<tr class="target">`)
		} else {
			b.WriteString("<tr>")
		}
		for _, c := range row {
			cell := inline(c)
			if d.UnitsTogether {
				cell = keepUnits(cell)
			}
			fmt.Fprintf(b, "<td>%s</td>", cell)
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table></div>\n")
}

// unitRE matches the space between a figure and its unit.
var unitRE = regexp.MustCompile(`(\d) (%|pp\b)`)

// keepUnits joins a figure and its unit with a no-break space.
func keepUnits(s string) string { return unitRE.ReplaceAllString(s, "$1&#160;$2") }
