package analysis

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/report/reporttest"
)

// chartMethod is what each chart's caption must name: how its intervals
// were made, or that it has none.
var chartMethod = map[string]string{chartScores: "Wilson", chartBlame: "Wilson", chartLift: "Newcombe", chartRepos: "Wilson",
	chartTrend: "without intervals"}

// checkPage checks report.html by its structure rather than byte for byte
// (report.md is the golden file): pageProblems.
func checkPage(t *testing.T, page, md []byte, charts []string) {
	t.Helper()
	for _, p := range pageProblems(page, md, charts) {
		t.Error("report.html: " + p)
	}
}

// pageProblems is what is wrong with a report page against its Markdown:
// not well formed or nested otherwise than written, anything fetched,
// headings other than report.md's in order, tables other than its tables
// (heads and rows), figures other than the charts ids in order, each an
// inline <svg> with a caption naming its interval method.
func pageProblems(page, md []byte, charts []string) []string {
	f, err := reporttest.CheckPage(page)
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	if len(f.Outside) > 0 {
		out = append(out, fmt.Sprintf("refers outside itself: %q", f.Outside))
	}
	headings, tables := markdownOutline(string(md))
	if !slices.Equal(f.Headings, headings) {
		out = append(out, fmt.Sprintf("headings\n%v\nwant report.md's\n%v", f.Headings, headings))
	}
	if !slices.EqualFunc(f.Tables, tables, func(a, b reporttest.Table) bool { return slices.Equal(a.Head, b.Head) && a.Rows == b.Rows }) {
		out = append(out, fmt.Sprintf("tables\n%v\nwant report.md's\n%v", f.Tables, tables))
	}
	var ids []string
	for _, fig := range f.Figures {
		id := strings.TrimPrefix(fig.ID, "chart-")
		ids = append(ids, id)
		if fig.SVGs != 1 {
			out = append(out, fmt.Sprintf("figure %s holds %d <svg> elements, want one inline", fig.ID, fig.SVGs))
		}
		if want := chartMethod[id]; want == "" || !strings.Contains(fig.Caption, want) {
			out = append(out, fmt.Sprintf("figure %s caption %q: want it to name %q", fig.ID, fig.Caption, want))
		}
	}
	if !slices.Equal(ids, charts) || f.SVGs != len(charts) {
		out = append(out, fmt.Sprintf("figures %v with %d <svg> elements in all, want %v, one each", ids, f.SVGs, charts))
	}
	return out
}

// TestPageProblems: the structural check of report.html finds each kind
// of damage a page golden would have caught, and nothing in a sound page.
func TestPageProblems(t *testing.T) {
	res := run(t, fixed(plantedStore(t, true)))
	page, md := readFile(t, filepath.Join(res.OutDir, ReportHTML)), readFile(t, filepath.Join(res.OutDir, ReportMarkdown))
	charts := Charts // the planted store with oracle evals has data for each
	if p := pageProblems(page, md, charts); len(p) > 0 {
		t.Fatalf("a sound page: %q", p)
	}
	svg := regexp.MustCompile(`(?s)<svg.*?</svg>`)
	for _, tc := range []struct {
		name   string
		damage func(string) string
	}{
		{"a heading renamed", func(s string) string { return strings.Replace(s, "<h2>Decision</h2>", "<h2>Decisions</h2>", 1) }},
		{"a section dropped", func(s string) string {
			return regexp.MustCompile(`(?s)<section>\n<h2>Method</h2>.*?</section>\n`).ReplaceAllString(s, "")
		}},
		{"a chart not drawn", func(s string) string { return svg.ReplaceAllLiteralString(s, "") }},
		{"a caption without its method", func(s string) string { return strings.Replace(s, "Wilson score interval", "interval", 1) }},
		{"a table head lost", func(s string) string { return strings.Replace(s, "<th>rank</th>", "", 1) }},
		{"a table row lost", func(s string) string {
			return regexp.MustCompile(`(?s)<tbody>\n<tr.*?</tr>\n`).ReplaceAllString(s, "<tbody>\n")
		}},
		{"an image fetched", func(s string) string {
			return strings.Replace(s, "</main>", `<img src="https://example.com/x.png"/></main>`, 1)
		}},
		{"a block in a paragraph", func(s string) string { return strings.Replace(s, "<p>The rule: ", "<p><div>x</div>The rule: ", 1) }},
		{"an element left open", func(s string) string { return strings.Replace(s, "</section>", "", 1) }},
	} {
		damaged := tc.damage(string(page))
		if damaged == string(page) {
			t.Fatalf("%s: the damage did not apply", tc.name)
		}
		if p := pageProblems([]byte(damaged), md, charts); len(p) == 0 {
			t.Errorf("%s: no problem found", tc.name)
		}
	}
}

// markdownOutline is the headings of a Markdown report and its pipe
// tables' heads and row counts, in order.
func markdownOutline(md string) ([]reporttest.Heading, []reporttest.Table) {
	var headings []reporttest.Heading
	var tables []reporttest.Table
	lines := strings.Split(md, "\n")
	fenced := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "```"):
			fenced = !fenced
		case fenced:
		case strings.HasPrefix(l, "#"):
			level := len(l) - len(strings.TrimLeft(l, "#"))
			headings = append(headings, reporttest.Heading{Level: level, Text: strings.TrimSpace(l[level:])})
		case strings.HasPrefix(l, "| ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "|---"):
			tb := reporttest.Table{Head: markdownCells(l)}
			for i += 2; i < len(lines) && strings.HasPrefix(lines[i], "| "); i++ {
				tb.Rows++
			}
			tables = append(tables, tb)
		}
	}
	return headings, tables
}

// markdownCells splits a pipe table's row, unescaping \|.
func markdownCells(row string) []string {
	const pipe = "\x00"
	row = strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(row, "| "), " |"), `\|`, pipe)
	cells := strings.Split(row, " | ")
	for i, c := range cells {
		cells[i] = strings.ReplaceAll(c, pipe, "|")
	}
	return cells
}
