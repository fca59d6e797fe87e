// Package report is the one model of cra's reports (train-plan's report,
// a dataset version's report) and its two writers: a Document of sections
// — headings, paragraphs, a bulleted list (the warnings), figures, tables,
// notes, a code block — rendered as Markdown (report.md) and as one
// self-contained HTML page (report.html: inline stylesheet and SVG, nothing
// fetched, well-formed XML as well as HTML), with CheckPage to test such a
// page. The content of a report is its package's; how a section is
// written is decided here once, so the two reports cannot drift apart.
//
// It must not import any cra package, draw charts (internal/charts does,
// and a Figure only carries one) or emit scripts.
package report
