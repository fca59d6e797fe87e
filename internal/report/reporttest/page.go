// Package reporttest reads a report page back for tests: whether it is
// well formed and nested as written, what it shows (headings, figures and
// their captions, table heads) and what would make it depend on anything
// outside itself. Tests check a page's structure with it instead of
// holding the whole page as a golden file.
package reporttest

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strings"

	"golang.org/x/net/html"
)

// PageFacts is what a report page holds.
type PageFacts struct {
	SVGs     int // <svg> elements anywhere
	Headings []Heading
	Figures  []Figure
	Tables   []Table
	Outside  []string // elements that fetch (<script>, <link>, <img>, <iframe>) and references out (http:, src=, url(...))
}

// Heading is an h1, h2 or h3 and its text.
type Heading struct {
	Level int
	Text  string
}

// Figure is a <figure>: its id, how many <svg> elements it holds inline,
// and its caption's text.
type Figure struct {
	ID      string
	SVGs    int
	Caption string
}

// Table is a <table>: the text of its head's cells and how many body rows
// it has.
type Table struct {
	Head []string
	Rows int
}

var outsideRE = regexp.MustCompile(`(?i)(https?:|//[a-z0-9.-]+\.[a-z]{2,}|url\(|@import|\b(?:src|href)=)`)

// CheckPage reads page as strict XML (a report page is well-formed XML as
// well as HTML) and with the HTML5 parser, and says what it holds. It
// fails when the page is not well-formed, or when the HTML5 parser would
// nest an element otherwise than the page's tags do (a <div> in a <p>, a
// stray end tag): what a browser shows would not be what was written.
func CheckPage(page []byte) (PageFacts, error) {
	var f PageFacts
	if err := wellFormed(page); err != nil {
		return f, err
	}
	written, err := tagTree(page)
	if err != nil {
		return f, err
	}
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return f, fmt.Errorf("parse as HTML: %w", err)
	}
	if parsed := nodeTree(doc, 0, nil); !equalTrees(written, parsed) {
		return f, fmt.Errorf("the HTML5 parser nests the page otherwise than its tags: %s", firstDifference(written, parsed))
	}
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		switch n.Data {
		case "svg":
			f.SVGs++
		case "h1", "h2", "h3":
			f.Headings = append(f.Headings, Heading{Level: int(n.Data[1] - '0'), Text: text(n)})
		case "figure":
			f.Figures = append(f.Figures, figure(n))
		case "table":
			f.Tables = append(f.Tables, table(n))
		case "script", "link", "img", "iframe":
			f.Outside = append(f.Outside, "<"+n.Data+">")
		}
	}
	for _, m := range outsideRE.FindAll(page, -1) {
		f.Outside = append(f.Outside, string(m))
	}
	return f, nil
}

func wellFormed(page []byte) error {
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict = true
	for {
		if _, err := d.Token(); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("not well formed: %w", err)
		}
	}
}

// element is an element at a depth, as a line of a tree walked in order.
type element struct {
	depth int
	name  string
}

// tagTree is the page's elements as its tags nest them.
func tagTree(page []byte) ([]element, error) {
	var out []element
	var open []string
	z := html.NewTokenizer(bytes.NewReader(page))
	for {
		switch z.Next() {
		case html.ErrorToken:
			if z.Err() == io.EOF {
				if len(open) > 0 {
					return nil, fmt.Errorf("elements left open: %v", open)
				}
				return out, nil
			}
			return nil, z.Err()
		case html.StartTagToken:
			name, _ := z.TagName()
			out = append(out, element{len(open), string(name)})
			if !void[string(name)] {
				open = append(open, string(name))
			}
		case html.SelfClosingTagToken:
			name, _ := z.TagName()
			out = append(out, element{len(open), string(name)})
		case html.EndTagToken:
			name, _ := z.TagName()
			if len(open) == 0 || open[len(open)-1] != string(name) {
				return nil, fmt.Errorf("</%s> closes %v", name, open)
			}
			open = open[:len(open)-1]
		}
	}
}

// void elements have no end tag.
var void = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true}

// nodeTree is the elements of the parser's tree below n, in document
// order; names in lower case, as the tokenizer gives them.
func nodeTree(n *html.Node, depth int, out []element) []element {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		out = append(out, element{depth, strings.ToLower(c.Data)})
		out = nodeTree(c, depth+1, out)
	}
	return out
}

func equalTrees(a, b []element) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func firstDifference(written, parsed []element) string {
	for i := range min(len(written), len(parsed)) {
		if written[i] != parsed[i] {
			return fmt.Sprintf("element %d is <%s> at depth %d as written, <%s> at depth %d as parsed",
				i, written[i].name, written[i].depth, parsed[i].name, parsed[i].depth)
		}
	}
	return fmt.Sprintf("%d elements as written, %d as parsed", len(written), len(parsed))
}

func figure(n *html.Node) Figure {
	f := Figure{ID: attr(n, "id")}
	for c := range n.Descendants() {
		switch {
		case c.Type != html.ElementNode:
		case c.Data == "svg":
			f.SVGs++
		case c.Data == "figcaption":
			f.Caption = text(c)
		}
	}
	return f
}

func table(n *html.Node) Table {
	var t Table
	for c := range n.Descendants() {
		if c.Type != html.ElementNode {
			continue
		}
		switch {
		case c.Data == "th":
			t.Head = append(t.Head, text(c))
		case c.Data == "tr" && c.Parent != nil && c.Parent.Data == "tbody":
			t.Rows++
		}
	}
	return t
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// text is the text below n, entities decoded.
func text(n *html.Node) string {
	var b strings.Builder
	for c := range n.Descendants() {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}
