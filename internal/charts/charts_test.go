package charts

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
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
	for name, c := range map[string]struct {
		bins   []Bin
		limit  float64
		xRange [2]float64 // want; zero for an empty histogram
	}{
		"limit inside":        {[]Bin{{0, 10, 3}, {10, 20, 0}, {20, 30, 5}}, 25, [2]float64{0, 30}},
		"limit just past":     {[]Bin{{0, 10, 3}, {10, 20, 0}, {20, 30, 5}}, 37, [2]float64{0, 37}},
		"limit far past":      {[]Bin{{0, 10, 3}, {10, 20, 0}, {20, 30, 5}}, 1000, [2]float64{0, 30}},
		"limit left of lo":    {[]Bin{{100, 110, 3}, {110, 120, 5}}, 50, [2]float64{100, 120}},
		"limit at the bottom": {[]Bin{{100, 110, 3}, {110, 120, 5}}, 100, [2]float64{100, 120}},
		"empty":               {nil, 45, [2]float64{}},
	} {
		p := New(name, "examples")
		if err := Histogram(p, c.bins, BarColor, Limit{X: c.limit, Label: "limit", Color: WarnColor}); err != nil {
			t.Fatal(err)
		}
		if c.bins != nil && (p.X.Min != c.xRange[0] || p.X.Max != c.xRange[1] || p.Y.Min != 0 || p.Y.Max != 6) {
			t.Errorf("%s: axes x [%g, %g], y [%g, %g]: want x %v (the line widens it only when in reach), y [0, 6]",
				name, p.X.Min, p.X.Max, p.Y.Min, p.Y.Max, c.xRange)
		}
		svg, err := InlineSVG(p)
		if err != nil {
			t.Fatal(err)
		}
		if els := svgElements(t, svg); els["svg"] != 1 || els["path"] == 0 {
			t.Errorf("%s: elements %v", name, els)
		}
		if c.bins == nil && !strings.Contains(p.Title.Text, "no data") {
			t.Errorf("empty histogram titled %q", p.Title.Text)
		}
	}
	if err := Histogram(New("bad", ""), []Bin{{5, 5, 1}}, BarColor); err == nil {
		t.Error("a bin of width 0 was drawn")
	}
}

// TestLimitInReach: on both sides of each edge of the reach.
func TestLimitInReach(t *testing.T) {
	for _, c := range []struct {
		lo, hi, x float64
		want      bool
	}{
		{100, 200, 99, false}, {100, 200, 100, true}, {100, 200, 150, true}, {100, 200, 200, true},
		{100, 200, 225, true}, {100, 200, 226, false}, {300, 1900, 32768, false}, {2000, 34000, 32768, true},
	} {
		if got := LimitInReach(c.lo, c.hi, c.x); got != c.want {
			t.Errorf("LimitInReach(%g, %g, %g) = %v, want %v", c.lo, c.hi, c.x, got, c.want)
		}
	}
}

// TestCountAxisTopsAtTheNextTick: the y axis ends at the first round tick
// above the tallest bar, whatever the legend holds (it was padded for the
// legend's rows: 5 under a three-entry legend made an axis of 8).
func TestCountAxisTopsAtTheNextTick(t *testing.T) {
	for _, c := range []struct {
		max    float64
		series int
		want   float64
	}{
		{1, 1, 2}, {4, 1, 5}, {5, 1, 6}, {5, 3, 6}, {8, 2, 10}, {9, 3, 10}, {10, 1, 12}, {47, 2, 50}, {374, 3, 400}, {1050, 3, 1200},
	} {
		series := make([]Series, c.series)
		for i := range series {
			series[i] = Series{Name: fmt.Sprint("s", i), Values: []float64{c.max / float64(i+1), 1}}
		}
		p := New("counts", "n")
		if err := GroupedBars(p, []string{"a", "b"}, series...); err != nil {
			t.Fatal(err)
		}
		if p.Y.Min != 0 || p.Y.Max != c.want {
			t.Errorf("max %g in %d series: y [%g, %g], want [0, %g]", c.max, c.series, p.Y.Min, p.Y.Max, c.want)
		}
		h := New("histogram", "n")
		if err := Histogram(h, []Bin{{0, 10, c.max}}, BarColor, Limit{X: 5, Label: "limit"}); err != nil {
			t.Fatal(err)
		}
		if h.Y.Max != c.want {
			t.Errorf("histogram of max %g with a limit: y up to %g, want %g", c.max, h.Y.Max, c.want)
		}
	}
}

// TestGroupedBarsCentreEachCategory: the bars a category has sit centred
// on its tick, however many of the series it lacks.
func TestGroupedBarsCentreEachCategory(t *testing.T) {
	series := []Series{
		{Name: "plan", Values: []float64{3, 0, 1, 0}},
		{Name: "implement", Values: []float64{0, 2, 1, 0}},
		{Name: "scope", Values: []float64{0, 0, 1, 4}},
	}
	bars, err := layBars(4, series)
	if err != nil {
		t.Fatal(err)
	}
	w := bars[0].width
	want := [][]vg.Length{ // per series, per category; a category's bars centred
		{0, 0, -w, 0},
		{0, 0, 0, 0},
		{0, 0, w, 0},
	}
	for i, b := range bars {
		if !slices.Equal(b.offsets, want[i]) {
			t.Errorf("series %s: offsets %v, want %v", series[i].Name, b.offsets, want[i])
		}
	}
	if _, err := layBars(3, series); err == nil {
		t.Error("series of 4 values laid over 3 categories")
	}
}

// TestLegendSitsAboveTheData: a legend's text is drawn above the data
// area, never over a bar or a limit's line (gonum's own legend sat inside
// it, its dashed marker beside a limit near the right edge).
func TestLegendSitsAboveTheData(t *testing.T) {
	for name, p := range map[string]*plot.Plot{
		"histogram":    New("histogram", "n"),
		"grouped bars": New("grouped bars", "n"),
		"off scale":    New("off scale", "n"),
	} {
		var err error
		switch name {
		case "histogram":
			err = Histogram(p, []Bin{{0, 10, 3}, {10, 20, 5}}, BarColor, Limit{X: 19, Label: "context window (1,000)"})
		case "off scale":
			err = Histogram(p, []Bin{{0, 10, 3}, {10, 20, 5}}, BarColor, Limit{X: 1000, Label: "context window (1,000)"})
		default:
			err = GroupedBars(p, []string{"a", "b"}, Series{Name: "train", Values: []float64{5, 1}}, Series{Name: "validation", Values: []float64{1, 5}})
		}
		if err != nil {
			t.Fatal(err)
		}
		rec := &recorder.Canvas{}
		c := draw.Canvas{Canvas: rec, Rectangle: vg.Rectangle{Max: vg.Point{X: 16 * vg.Centimeter, Y: 8 * vg.Centimeter}}}
		data := p.DataCanvas(c)
		p.Draw(c)
		var legend []string
		for _, a := range rec.Actions {
			s, ok := a.(*recorder.FillString)
			if !ok || !slices.ContainsFunc([]string{"context window", "train", "validation"}, func(w string) bool { return strings.Contains(s.String, w) }) {
				continue
			}
			legend = append(legend, s.String)
			if s.Point.Y < data.Max.Y {
				t.Errorf("%s: legend %q drawn at y %v, inside the data area (top %v)", name, s.String, s.Point.Y, data.Max.Y)
			}
		}
		if len(legend) == 0 {
			t.Errorf("%s: no legend drawn", name)
		}
		if name == "off scale" && (len(legend) != 1 || !strings.Contains(legend[0], "right of this scale")) {
			t.Errorf("off scale: legend %q, want the limit named right of the scale", legend)
		}
	}
}
