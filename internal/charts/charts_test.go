package charts

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

// svgElements parses an inline SVG strictly and counts its elements by name.
func svgElements(t *testing.T, svg []byte) map[string]int {
	t.Helper()
	// Inline SVG carries no namespace declaration; the HTML parser supplies it.
	d := xml.NewDecoder(bytes.NewReader(svg))
	d.Strict = true
	n := map[string]int{}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatalf("not well formed: %v\n%s", err, svg)
		}
		if se, ok := tok.(xml.StartElement); ok {
			n[se.Name.Local]++
		}
	}
}

func TestInlineSVGHasNoPrologSizeOrNamespace(t *testing.T) {
	p := New("title", "y")
	if err := GroupedBars(p, []string{"a", "b"}, Series{Name: "one", Values: []float64{1, 2}}); err != nil {
		t.Fatal(err)
	}
	svg, err := InlineSVG(p)
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(svg), ">")
	if !strings.HasPrefix(head, "<svg") || strings.Contains(head, "width=") || strings.Contains(head, "xmlns") || !strings.Contains(head, `role="img"`) {
		t.Errorf("svg tag %q: want <svg role=\"img\"> without size or namespace", head)
	}
	if svgElements(t, svg)["svg"] != 1 {
		t.Error("want one svg element")
	}
}

func TestNiceWidth(t *testing.T) {
	for _, c := range []struct {
		span float64
		n    int
		want float64
	}{
		{1000, 20, 50}, {1100, 20, 100}, {8192, 24, 500}, {30, 24, 2}, {5, 24, 1}, {0, 24, 1}, {240, 24, 10},
	} {
		if got := NiceWidth(c.span, c.n); got != c.want {
			t.Errorf("NiceWidth(%g, %d) = %g, want %g", c.span, c.n, got, c.want)
		}
	}
}

func TestHistogramWithLimit(t *testing.T) {
	for name, bins := range map[string][]Bin{
		"counts": {{0, 10, 3}, {10, 20, 0}, {20, 30, 5}},
		"empty":  nil,
	} {
		p := New(name, "examples")
		if err := Histogram(p, bins, BarColor, Limit{X: 45, Label: "limit", Color: WarnColor}); err != nil {
			t.Fatal(err)
		}
		if bins != nil && (p.X.Min != 0 || p.X.Max != 45 || p.Y.Min != 0 || p.Y.Max <= 5) {
			t.Errorf("%s: axes x [%g, %g], y [%g, %g]: want x over the bins and the line at 45, y from 0 with room above 5",
				name, p.X.Min, p.X.Max, p.Y.Min, p.Y.Max)
		}
		svg, err := InlineSVG(p)
		if err != nil {
			t.Fatal(err)
		}
		if els := svgElements(t, svg); els["svg"] != 1 || els["path"] == 0 {
			t.Errorf("%s: elements %v", name, els)
		}
		if bins == nil && !strings.Contains(p.Title.Text, "no data") {
			t.Errorf("empty histogram titled %q", p.Title.Text)
		}
	}
	if err := Histogram(New("bad", ""), []Bin{{5, 5, 1}}, BarColor); err == nil {
		t.Error("a bin of width 0 was drawn")
	}
}
