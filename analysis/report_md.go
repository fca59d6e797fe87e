package analysis

import (
	"fmt"
	"math"
	"strings"
)

// Markdown renders the report as Markdown (report.md).
func Markdown(r *Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n\n", r.title(), r.byline())
	for _, s := range r.sections() {
		writeSectionMD(&b, s)
	}
	if n := r.Narrative; n != nil {
		writeSectionMD(&b, narrativeSection(n))
	}
	return b.String()
}

// narrativeSection holds the model's prose apart from the computed
// figures, saying so.
func narrativeSection(n *Narrative) section {
	s := section{title: "Narrative (reasoning model)", level: 2, paras: []string{
		fmt.Sprintf("_Written by %s from the computed findings above; it changes no figure, and where it disagrees with a table the table holds._", n.Model)}}
	for _, p := range strings.Split(n.Text, "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			s.paras = append(s.paras, p)
		}
	}
	if len(n.Unsupported) > 0 {
		s.paras = append(s.paras, "_Numbers in the narrative that the computed findings do not hold: "+strings.Join(n.Unsupported, ", ")+"._")
	}
	return s
}

func writeSectionMD(b *strings.Builder, s section) {
	fmt.Fprintf(b, "%s %s\n\n", strings.Repeat("#", s.level), s.title)
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
		writeTableMD(b, t)
	}
	if s.code != "" {
		fmt.Fprintf(b, "```json\n%s\n```\n\n", s.code)
	}
}

func writeTableMD(b *strings.Builder, t table) {
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	row := func(cells []string) {
		parts := make([]string, len(cells))
		for i, c := range cells {
			parts[i] = cell(c)
		}
		b.WriteString("| " + strings.Join(parts, " | ") + " |\n")
	}
	row(t.head)
	seps := make([]string, len(t.head))
	for i := range seps {
		seps[i] = "---"
	}
	b.WriteString("|" + strings.Join(seps, "|") + "|\n")
	for _, r := range t.rows {
		row(r)
	}
	b.WriteString("\n")
}

func exp(x float64) float64 { return math.Exp(x) }
