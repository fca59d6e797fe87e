package report

import (
	"fmt"
	"strings"
)

// Markdown renders d as Markdown: the title as the one level-1 heading,
// the byline, then the sections. Figures are the page's alone.
func Markdown(d Document) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n\n", d.Title, d.Byline)
	writeSectionsMD(&b, d.Sections)
	return b.String()
}

// MarkdownSections renders sections alone, without a title: a part of a
// report quoted elsewhere (train-plan's findings for its narrative).
func MarkdownSections(sections ...Section) string {
	var b strings.Builder
	writeSectionsMD(&b, sections)
	return b.String()
}

func writeSectionsMD(b *strings.Builder, sections []Section) {
	for _, s := range sections {
		fmt.Fprintf(b, "%s %s\n\n", strings.Repeat("#", s.Level), s.Title)
		for _, p := range s.Paras {
			b.WriteString(p + "\n\n")
		}
		for _, item := range s.List {
			b.WriteString("- " + item + "\n")
		}
		if len(s.List) > 0 {
			b.WriteString("\n")
		}
		for _, t := range s.Tables {
			writeTableMD(b, t)
		}
		for _, p := range s.Notes {
			b.WriteString(p + "\n\n")
		}
		if s.Code != "" {
			fmt.Fprintf(b, "```json\n%s\n```\n\n", s.Code)
		}
	}
}

// writeTableMD writes a pipe table; a | in a cell is escaped so it stays
// in its column.
func writeTableMD(b *strings.Builder, t Table) {
	row := func(cells []string) {
		parts := make([]string, len(cells))
		for i, c := range cells {
			parts[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		b.WriteString("| " + strings.Join(parts, " | ") + " |\n")
	}
	row(t.Head)
	b.WriteString(strings.Repeat("|---", len(t.Head)) + "|\n")
	for _, r := range t.Rows {
		row(r)
	}
	b.WriteString("\n")
}
