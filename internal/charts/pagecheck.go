package charts

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
)

// PageFacts is what a report page holds, for checking it: its SVG
// elements, the ids of its figures, and what would make it depend on
// anything outside itself.
type PageFacts struct {
	SVGs    int
	Figures []string
	Outside []string // elements that fetch (<script>, <link>, <img>, <iframe>) and references out (http:, src=, url(...))
}

var outsideRE = regexp.MustCompile(`(?i)(https?:|//[a-z0-9.-]+\.[a-z]{2,}|url\(|@import|\b(?:src|href)=)`)

// CheckPage reads page as strict XML (a report page is well-formed XML as
// well as HTML) and says what it holds; an error when it is not
// well-formed.
func CheckPage(page []byte) (PageFacts, error) {
	var f PageFacts
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict = true
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return f, fmt.Errorf("not well formed: %w", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "svg":
			f.SVGs++
		case "figure":
			for _, a := range se.Attr {
				if a.Name.Local == "id" {
					f.Figures = append(f.Figures, a.Value)
				}
			}
		case "script", "link", "img", "iframe":
			f.Outside = append(f.Outside, "<"+se.Name.Local+">")
		}
	}
	for _, m := range outsideRE.FindAll(page, -1) {
		f.Outside = append(f.Outside, string(m))
	}
	return f, nil
}
