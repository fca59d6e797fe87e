package report

import (
	"fmt"
	"html"
	"io"
	"regexp"
	"strings"
)

// pageStart writes the head of a self-contained report page: the title
// (escaped here), the inline stylesheet, and the byline (HTML, escaped by
// the caller).
func pageStart(w io.Writer, title, byline string) {
	t := html.EscapeString(title)
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"+
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n<title>%s</title>\n<style>\n%s\n</style>\n</head>\n"+
		"<body>\n<main>\n<h1>%s</h1>\n<p class=\"byline\">%s</p>\n", t, css, t, byline)
}

var (
	codeRE   = regexp.MustCompile("`([^`]+)`")
	strongRE = regexp.MustCompile(`\*\*([^*]+)\*\*`)
)

// inline turns a report paragraph's Markdown (`code`, **bold**, _a whole
// paragraph in italics_) into escaped HTML.
func inline(s string) string {
	em := strings.HasPrefix(s, "_") && strings.HasSuffix(s, "_") && len(s) > 1
	if em {
		s = s[1 : len(s)-1]
	}
	out := html.EscapeString(s)
	out = codeRE.ReplaceAllString(out, "<code>$1</code>")
	out = strongRE.ReplaceAllString(out, "<strong>$1</strong>")
	if em {
		out = "<em>" + out + "</em>"
	}
	return out
}

// pageEnd closes what pageStart opened.
func pageEnd(w io.Writer) { io.WriteString(w, "</main>\n</body>\n</html>\n") } //nolint:errcheck // a buffer

// css is the stylesheet of the HTML reports, inlined in each page's
// <style>: system fonts only, nothing fetched. SVG charts take the page's
// width up to 48rem.
const css = `body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",sans-serif;color:#1f2328;background:#fff;margin:0}
main{max-width:64rem;margin:0 auto;padding:1.5rem 1.25rem 3rem}
h1{font-size:1.6rem;line-height:1.25;margin:.5rem 0 .75rem}
h2{font-size:1.25rem;margin:2rem 0 .5rem;padding-bottom:.25rem;border-bottom:1px solid #d0d7de}
h3{font-size:1.05rem;margin:1.5rem 0 .5rem}
p{margin:.5rem 0}
.byline{color:#59636e;font-size:.9rem}
.table{overflow-x:auto;margin:.75rem 0}
table{border-collapse:collapse;font-size:.875rem;font-variant-numeric:tabular-nums}
th,td{border:1px solid #d0d7de;padding:.3rem .55rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}
tr.target td{background:#fff8c5;font-weight:600}
figure{margin:1rem 0}
svg{width:100%;height:auto;max-width:48rem;display:block}
code{font:.85em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f6f8fa;padding:.1em .3em;border-radius:4px}
pre{background:#f6f8fa;padding:.75rem;overflow-x:auto;border-radius:6px}
pre code{background:none;padding:0}
.narrative{border-left:4px solid #8250df;padding-left:1rem}`
