package datasets

import (
	"fmt"
	"strings"
)

// reportMarkdown renders the report as Markdown (report.md); the charts
// are the HTML page's alone.
func reportMarkdown(r *versionReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n\n", r.title(), r.byline())
	for _, s := range r.sections() {
		fmt.Fprintf(&b, "%s %s\n\n", strings.Repeat("#", s.level), s.title)
		for _, p := range s.paras {
			b.WriteString(p + "\n\n")
		}
		for _, item := range s.list {
			b.WriteString("- " + item + "\n")
		}
		if len(s.list) > 0 {
			b.WriteString("\n")
		}
		for _, t := range s.tables {
			writeReportTableMD(&b, t)
		}
		for _, p := range s.notes {
			b.WriteString(p + "\n\n")
		}
		if s.code != "" {
			fmt.Fprintf(&b, "```json\n%s\n```\n\n", s.code)
		}
	}
	return b.String()
}

func writeReportTableMD(b *strings.Builder, t reportTable) {
	row := func(cells []string) {
		parts := make([]string, len(cells))
		for i, c := range cells {
			parts[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		b.WriteString("| " + strings.Join(parts, " | ") + " |\n")
	}
	row(t.head)
	b.WriteString(strings.Repeat("|---", len(t.head)) + "|\n")
	for _, r := range t.rows {
		row(r)
	}
	b.WriteString("\n")
}
