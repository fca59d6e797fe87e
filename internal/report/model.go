package report

// Document is a report as both writers render it: a title, a byline under
// it, and its sections in order.
type Document struct {
	Title    string // plain text
	Byline   string // Markdown inline: `code`, **bold**
	Sections []Section
	// UnitsTogether keeps a figure and its unit ("60.0 %", "2 pp") on one
	// line in the page's tables, where a narrow column broke the line
	// between them (train-plan's report).
	UnitsTogether bool
	// MutedCaptions sets figure captions in the byline's muted style (a
	// dataset version's report).
	MutedCaptions bool
}

// Section is one part of a report. Both writers show, in this order, the
// heading, the paragraphs, the list, the tables, the notes and the code
// block; the page shows the figures after the list. Every paragraph, item,
// cell, note and caption is Markdown inline (`code`, **bold**, _a whole
// paragraph in italics_).
type Section struct {
	Title   string
	Level   int    // 2 or 3
	Class   string // the page's class of the section ("narrative": set apart), "" for none
	Paras   []string
	List    []string // a bulleted list
	Figures []Figure // drawn on the page only
	Tables  []Table
	Notes   []string // paragraphs under the tables
	Code    string   // a JSON code block
}

// Figure is a chart of the page: its id (the element's is "chart-"+ID),
// its caption, and Draw, which returns it as an inline <svg> element; it
// is called only when the page is written, so Markdown draws nothing.
type Figure struct {
	ID      string
	Caption string
	Draw    func() ([]byte, error)
}

// Table is a head and rows of cells. Highlight, when set, picks the rows
// the page highlights (class "target": train-plan's chosen stage).
type Table struct {
	Head      []string
	Rows      [][]string
	Highlight func(row []string) bool
}
