package report

import (
	"errors"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/report/reporttest"
)

const svg = `<svg viewBox="0 0 10 10"><rect width="1" height="2"/></svg>` + "\n"

// sample is a document with one of every element.
func sample() Document {
	return Document{Title: "A <report> & more", Byline: "Run `t1`, **3** tasks.", Sections: []Section{
		{Title: "First", Level: 2, Paras: []string{"One `code` & <b>.", "_All italics._"}, List: []string{"a warning", "another"},
			Figures: []Figure{{ID: "bars", Caption: "Bars; whiskers: 95 % Wilson interval.", Draw: func() ([]byte, error) { return []byte(svg), nil }}},
			Tables: []Table{{Head: []string{"stage", "share", "note"}, Rows: [][]string{{"scope", "60.0 %", "← target"}, {"a|b", "2 pp", ""}},
				Highlight: func(row []string) bool { return row[2] != "" }}},
			Notes: []string{"First ids: `x`."}},
		{Title: "Second", Level: 3, Class: "narrative", Code: "{\n  \"a\": \"<b>\"\n}"},
	}}
}

// TestMarkdown: the whole Markdown of the sample, and no figure drawn.
func TestMarkdown(t *testing.T) {
	d := sample()
	d.Sections[0].Figures[0].Draw = func() ([]byte, error) { t.Error("Markdown drew a figure"); return nil, nil }
	want := "# A <report> & more\n\nRun `t1`, **3** tasks.\n\n" +
		"## First\n\nOne `code` & <b>.\n\n_All italics._\n\n- a warning\n- another\n\n" +
		"| stage | share | note |\n|---|---|---|\n| scope | 60.0 % | ← target |\n| a\\|b | 2 pp |  |\n\n" +
		"First ids: `x`.\n\n" +
		"### Second\n\n```json\n{\n  \"a\": \"<b>\"\n}\n```\n\n"
	if got := Markdown(d); got != want {
		t.Errorf("Markdown:\n%s\nwant:\n%s", got, want)
	}
	if got, want := MarkdownSections(d.Sections[1]), "### Second\n\n```json\n{\n  \"a\": \"<b>\"\n}\n```\n\n"; got != want {
		t.Errorf("MarkdownSections:\n%s\nwant:\n%s", got, want)
	}
}

// TestHTML: each element as the page writes it, with and without the
// document's two style choices, and the page sound.
func TestHTML(t *testing.T) {
	for _, tc := range []struct {
		name        string
		units, mute bool
		want, not   []string
	}{
		{"plain", false, false,
			[]string{"<title>A &lt;report&gt; &amp; more</title>", "<h1>A &lt;report&gt; &amp; more</h1>",
				`<p class="byline">Run <code>t1</code>, <strong>3</strong> tasks.</p>`,
				"<section>\n<h2>First</h2>\n<p>One <code>code</code> &amp; &lt;b&gt;.</p>\n<p><em>All italics.</em></p>\n<ul>\n<li>a warning</li>\n<li>another</li>\n</ul>\n",
				"<figure id=\"chart-bars\">\n" + svg + "<figcaption>Bars; whiskers: 95 % Wilson interval.</figcaption>\n</figure>\n",
				"<thead><tr><th>stage</th><th>share</th><th>note</th></tr></thead>",
				`<tr class="target"><td>scope</td><td>60.0 %</td><td>← target</td></tr>`, "<tr><td>a|b</td><td>2 pp</td><td></td></tr>",
				"</table></div>\n<p>First ids: <code>x</code>.</p>\n</section>\n",
				"<section class=\"narrative\">\n<h3>Second</h3>\n<pre><code>{\n  &#34;a&#34;: &#34;&lt;b&gt;&#34;\n}</code></pre>\n</section>\n"},
			[]string{"&#160;", `<figcaption class="byline">`}},
		{"units together", true, false, []string{"<td>60.0&#160;%</td>", "<td>2&#160;pp</td>", "95 % Wilson"}, nil},
		{"muted captions", false, true, []string{`<figcaption class="byline">Bars;`}, []string{"<figcaption>"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := sample()
			d.UnitsTogether, d.MutedCaptions = tc.units, tc.mute
			page, err := HTML(d)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(page), w) {
					t.Errorf("page lacks %q:\n%s", w, page)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(string(page), n) {
					t.Errorf("page holds %q", n)
				}
			}
			f, err := reporttest.CheckPage(page)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Outside) > 0 || len(f.Figures) != 1 || f.Figures[0].SVGs != 1 || len(f.Headings) != 3 || len(f.Tables) != 1 {
				t.Errorf("page facts %+v: want one figure with its svg, three headings, one table, nothing outside", f)
			}
		})
	}
}

// TestHTMLFigureError: a figure that cannot be drawn fails the page.
func TestHTMLFigureError(t *testing.T) {
	d := sample()
	broken := errors.New("chart bars: no data")
	d.Sections[0].Figures[0].Draw = func() ([]byte, error) { return nil, broken }
	if _, err := HTML(d); !errors.Is(err, broken) {
		t.Errorf("err %v, want the figure's", err)
	}
}
