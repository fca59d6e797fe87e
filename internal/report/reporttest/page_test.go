package reporttest

import (
	"slices"
	"strings"
	"testing"
)

// page wraps a body in the head of a report page.
func page(body string) []byte {
	return []byte("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>t</title>\n<style>\np{margin:0}\n</style>\n</head>\n" +
		"<body>\n<main>\n" + body + "</main>\n</body>\n</html>\n")
}

// TestCheckPage: what it reads from a sound page, and each kind of page
// it refuses, on both sides of each rule.
func TestCheckPage(t *testing.T) {
	sound := "<h1>T</h1>\n<section>\n<h2>A <code>b</code></h2>\n<p>x<br/>y</p>\n" +
		"<figure id=\"chart-x\">\n<svg viewBox=\"0 0 1 1\"><clipPath id=\"c\"><rect/></clipPath><path d=\"M0 0\"/></svg><figcaption>Bars: 95 % <em>Wilson</em>.</figcaption>\n</figure>\n" +
		"<div class=\"table\"><table>\n<thead><tr><th>a</th><th>b &amp; c</th></tr></thead>\n<tbody>\n<tr><td>1</td><td>2&#160;%</td></tr>\n<tr><td>3</td><td>4</td></tr>\n</tbody>\n</table></div>\n" +
		"</section>\n"
	f, err := CheckPage(page(sound))
	if err != nil {
		t.Fatal(err)
	}
	if want := []Heading{{1, "T"}, {2, "A b"}}; !slices.Equal(f.Headings, want) {
		t.Errorf("headings %v, want %v", f.Headings, want)
	}
	if want := []Figure{{ID: "chart-x", SVGs: 1, Caption: "Bars: 95 % Wilson."}}; !slices.Equal(f.Figures, want) || f.SVGs != 1 {
		t.Errorf("figures %v (%d svg), want %v", f.Figures, f.SVGs, want)
	}
	if len(f.Tables) != 1 || !slices.Equal(f.Tables[0].Head, []string{"a", "b & c"}) || f.Tables[0].Rows != 2 {
		t.Errorf("tables %+v, want heads a, b & c and 2 rows", f.Tables)
	}
	if len(f.Outside) > 0 {
		t.Errorf("outside %q, want none", f.Outside)
	}

	for _, tc := range []struct {
		name, body, err string
	}{
		{"a block in a paragraph", "<p><div>x</div></p>\n", "nests the page otherwise"},
		{"a row without tbody", "<table><tr><td>x</td></tr></table>\n", "nests the page otherwise"},
		{"a list item outside a list", "<p><li>x</li></p>\n", "nests the page otherwise"},
		{"an element left open", "<section>\n<p>x</p>\n", "not well formed"},
		{"a stray end tag", "<p>x</p></p>\n", "not well formed"},
	} {
		if _, err := CheckPage(page(tc.body)); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.err)
		}
	}
	for body, want := range map[string]string{
		"<p>see http://example.com</p>\n":             "http:",
		"<p style=\"a:url(x)\">x</p>\n":               "url(",
		"<img src=\"x.png\"/>\n":                      "<img>",
		"<script>let a = 1</script>\n":                "<script>",
		"<link rel=\"stylesheet\" href=\"s.css\"/>\n": "<link>",
	} {
		f, err := CheckPage(page(body))
		if err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		if !slices.Contains(f.Outside, want) {
			t.Errorf("%q: outside %q, want %q", body, f.Outside, want)
		}
	}
}
