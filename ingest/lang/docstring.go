package lang

import (
	"regexp"
	"strings"

	"github.com/cra-dev/cra/kb/schema"
)

var (
	sphinxRe = regexp.MustCompile(`(?m)^\s*:(?:param|parameter|arg|argument|key|keyword|type|returns?|rtype|raises?|except|exception|ivar|cvar|var)\b[^:\n]*:`)
	jsdocRe  = regexp.MustCompile(`(?m)^\s*@(?:param|arg|argument|returns?|throws|exception|typedef|type|example|deprecated|see|template|property)\b`)
	// googleHeaderRe is a Google-style section header line ("Args:").
	googleHeaderRe = regexp.MustCompile(`^(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Kwargs|Other Parameters|Returns|Return|Yields|Yield|Raises|Raise|Exceptions|Throws|Attributes|Example|Examples|Note|Notes|See Also|Todo|Warning|Warnings|Warns|References|Methods)\s*:$`)
	// numpyHeaderRe is a numpydoc section title, underlined on the next line.
	numpyHeaderRe = regexp.MustCompile(`^(Parameters|Other Parameters|Returns|Yields|Receives|Raises|Warns|Warnings|See Also|Notes|References|Examples|Attributes|Methods)$`)

	googleParamRe = regexp.MustCompile(`^(\*{0,2}[\w.]+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$`)
	typeThenRe    = regexp.MustCompile(`^([^:]+?)\s*:\s*(.*)$`)
	numpyParamRe  = regexp.MustCompile(`^(\*{0,2}[\w.]+(?:\s*,\s*\*{0,2}[\w.]+)*)\s*(?::\s*(.*))?$`)
	sphinxFieldRe = regexp.MustCompile(`^:(\w+)(?:\s+([^:]*?))?\s*:\s*(.*)$`)
	jsdocTagRe    = regexp.MustCompile(`^@(\w+)\s*(?:\{((?:[^{}]|\{[^{}]*\})*)\})?\s*(.*)$`)
)

// detectFormat names a docstring's format from its content. jsdoc says the
// text came from a /** */ comment.
//
// Like classify, it runs on every docstring, so each regexp is guarded by a
// cheap test that holds whenever the regexp can match.
func detectFormat(content string, jsdoc bool) string {
	if jsdoc {
		return FormatJSDoc
	}
	if containsAny(content, sphinxFields) && sphinxRe.MatchString(content) {
		return FormatSphinx
	}
	hasColon := strings.Contains(content, ":")
	if hasColon || strings.Contains(content, "---") {
		lines := strings.Split(content, "\n")
		switch {
		case isNumpy(lines):
			return FormatNumpy
		case hasColon && isGoogle(lines):
			return FormatGoogle
		}
	}
	if strings.Contains(content, "@") && jsdocRe.MatchString(content) {
		return FormatJSDoc
	}
	return FormatPlain
}

// sphinxFields holds a prefix of each field name sphinxRe accepts.
var sphinxFields = []string{":param", ":arg", ":key", ":type", ":return", ":rtype", ":raise",
	":except", ":ivar", ":cvar", ":var"}

// isUnderline reports a numpydoc section underline, three dashes or more.
func isUnderline(t string) bool {
	return len(t) >= 3 && strings.Trim(t, "-") == ""
}

// isNumpyHeader reports a numpydoc section title over its underline.
func isNumpyHeader(t, next string) bool {
	return isUnderline(strings.TrimSpace(next)) && numpyHeaderRe.MatchString(t)
}

// isGoogleHeader reports a Google-style section header line, trimmed.
func isGoogleHeader(t string) bool {
	return strings.HasSuffix(t, ":") && googleHeaderRe.MatchString(t)
}

func isNumpy(lines []string) bool {
	for i := 0; i+1 < len(lines); i++ {
		if isNumpyHeader(strings.TrimSpace(lines[i]), lines[i+1]) {
			return true
		}
	}
	return false
}

func isGoogle(lines []string) bool {
	for i := 0; i+1 < len(lines); i++ {
		if !isGoogleHeader(strings.TrimSpace(lines[i])) {
			continue
		}
		if next := nextNonBlank(lines, i+1); next >= 0 && indent(lines[next]) > indent(lines[i]) {
			return true
		}
	}
	return false
}

func nextNonBlank(lines []string, from int) int {
	for i := from; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "" {
			return i
		}
	}
	return -1
}

func indent(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }

// parseDoc extracts the summary, params, returns and raises of a docstring.
func parseDoc(content, format string) schema.DocFields {
	lines := strings.Split(content, "\n")
	var f schema.DocFields
	switch format {
	case FormatGoogle:
		f = parseGoogle(lines)
	case FormatNumpy:
		f = parseNumpy(lines)
	case FormatSphinx:
		f = parseSphinx(lines)
	case FormatJSDoc:
		f = parseJSDoc(lines)
	}
	if s := summary(lines); s != "" || f.Summary == "" {
		f.Summary = s
	}
	return f
}

// summary is the first paragraph, up to a blank line or the first section.
func summary(lines []string) string { return firstParagraph(lines, opensSection) }

// opensSection reports whether line i, trimmed to t, starts a tag, field
// or section.
func opensSection(lines []string, i int, t string) bool {
	return strings.HasPrefix(t, "@") || (strings.HasPrefix(t, ":") && sphinxFieldRe.MatchString(t)) || isGoogleHeader(t) ||
		(i+1 < len(lines) && isNumpyHeader(t, lines[i+1]))
}

// firstParagraph joins the trimmed lines up to a blank line or the first
// line that opens a section.
func firstParagraph(lines []string, opens func(lines []string, i int, t string) bool) string {
	var parts []string
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" {
			if len(parts) > 0 {
				break
			}
			continue
		}
		if opens(lines, i, t) {
			break
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, " ")
}

// entry is one item of a section: its head line and continuation lines.
type entry struct {
	head string
	more []string
}

func (e entry) desc(first string) string {
	parts := []string{}
	if first != "" {
		parts = append(parts, first)
	}
	for _, m := range e.more {
		if t := strings.TrimSpace(m); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, " ")
}

// entries splits a section body into items: a line at the body's smallest
// indentation starts an item, deeper lines continue it.
func entries(body []string) []entry {
	base := -1
	for _, l := range body {
		if strings.TrimSpace(l) != "" && (base < 0 || indent(l) < base) {
			base = indent(l)
		}
	}
	var out []entry
	for _, l := range body {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if indent(l) == base || len(out) == 0 {
			out = append(out, entry{head: strings.TrimSpace(l)})
			continue
		}
		out[len(out)-1].more = append(out[len(out)-1].more, l)
	}
	return out
}

// sections maps section titles to body lines. isHeader returns the title of
// a header line and how many lines the header takes.
func sections(lines []string, isHeader func(i int) (string, int)) map[string][]string {
	out := map[string][]string{}
	cur, base := "", 0
	for i := 0; i < len(lines); i++ {
		if title, n := isHeader(i); n > 0 {
			cur, base = title, indent(lines[i])
			i += n - 1
			continue
		}
		if cur == "" {
			continue
		}
		if strings.TrimSpace(lines[i]) != "" && indent(lines[i]) < base {
			cur = ""
			continue
		}
		out[cur] = append(out[cur], lines[i])
	}
	return out
}

func canonicalSection(title string) string {
	switch title {
	case "Args", "Arguments", "Parameters", "Params", "Keyword Args", "Keyword Arguments", "Kwargs", "Other Parameters":
		return "params"
	case "Returns", "Return", "Yields", "Yield":
		return "returns"
	case "Raises", "Raise", "Exceptions", "Throws":
		return "raises"
	}
	return title
}

func parseGoogle(lines []string) schema.DocFields {
	secs := sections(lines, func(i int) (string, int) {
		t := strings.TrimSpace(lines[i])
		if !strings.HasSuffix(t, ":") {
			return "", 0
		}
		if m := googleHeaderRe.FindStringSubmatch(t); m != nil {
			return canonicalSection(m[1]), 1
		}
		return "", 0
	})
	var f schema.DocFields
	for _, e := range entries(secs["params"]) {
		if m := googleParamRe.FindStringSubmatch(e.head); m != nil {
			f.Params = append(f.Params, schema.DocParam{Name: m[1], Type: strings.TrimSpace(m[2]), Description: e.desc(m[3])})
		} else {
			f.Params = append(f.Params, schema.DocParam{Name: e.head, Description: e.desc("")})
		}
	}
	if es := entries(secs["returns"]); len(es) > 0 {
		// One return value: its lines may all be at the same indentation.
		all := entry{head: es[0].head, more: es[0].more}
		for _, e := range es[1:] {
			all.more = append(all.more, e.head)
			all.more = append(all.more, e.more...)
		}
		r := &schema.DocType{Description: all.desc(all.head)}
		if m := typeThenRe.FindStringSubmatch(all.head); m != nil && looksLikeType(m[1]) {
			r = &schema.DocType{Type: m[1], Description: all.desc(m[2])}
		}
		f.Returns = r
	}
	for _, e := range entries(secs["raises"]) {
		if m := typeThenRe.FindStringSubmatch(e.head); m != nil && looksLikeType(m[1]) {
			f.Raises = append(f.Raises, schema.DocType{Type: m[1], Description: e.desc(m[2])})
		} else {
			f.Raises = append(f.Raises, schema.DocType{Type: e.head, Description: e.desc("")})
		}
	}
	return f
}

// looksLikeType accepts "int", "dict[str, int]", "Optional[Foo]", "a.B" but
// not prose such as "The sum".
func looksLikeType(s string) bool {
	depth := 0
	for _, r := range s {
		switch {
		case r == '[' || r == '(' || r == '{' || r == '<':
			depth++
		case r == ']' || r == ')' || r == '}' || r == '>':
			depth--
		case r == ' ' && depth == 0:
			return false
		}
	}
	return s != ""
}

func parseNumpy(lines []string) schema.DocFields {
	secs := sections(lines, func(i int) (string, int) {
		t := strings.TrimSpace(lines[i])
		if i+1 < len(lines) && isNumpyHeader(t, lines[i+1]) {
			return canonicalSection(t), 2
		}
		return "", 0
	})
	var f schema.DocFields
	for _, e := range entries(secs["params"]) {
		m := numpyParamRe.FindStringSubmatch(e.head)
		if m == nil {
			f.Params = append(f.Params, schema.DocParam{Name: e.head, Description: e.desc("")})
			continue
		}
		for _, name := range strings.Split(m[1], ",") {
			f.Params = append(f.Params, schema.DocParam{Name: strings.TrimSpace(name), Type: strings.TrimSpace(m[2]), Description: e.desc("")})
		}
	}
	if es := entries(secs["returns"]); len(es) > 0 {
		e := es[0]
		typ := e.head
		if m := typeThenRe.FindStringSubmatch(e.head); m != nil {
			typ = m[2]
		}
		f.Returns = &schema.DocType{Type: typ, Description: e.desc("")}
	}
	for _, e := range entries(secs["raises"]) {
		f.Raises = append(f.Raises, schema.DocType{Type: e.head, Description: e.desc("")})
	}
	return f
}

func parseSphinx(lines []string) schema.DocFields {
	var f schema.DocFields
	types := map[string]string{}
	var last *string // description being continued
	for _, l := range lines {
		t := strings.TrimSpace(l)
		m := sphinxFieldRe.FindStringSubmatch(t)
		if m == nil {
			if last != nil && t != "" {
				*last = strings.TrimSpace(*last + " " + t)
			} else if t == "" {
				last = nil
			}
			continue
		}
		last = nil
		field, arg, desc := m[1], strings.TrimSpace(m[2]), strings.TrimSpace(m[3])
		switch field {
		case "param", "parameter", "arg", "argument", "key", "keyword":
			p := schema.DocParam{Name: arg, Description: desc}
			if i := strings.LastIndexByte(arg, ' '); i >= 0 {
				p.Type, p.Name = strings.TrimSpace(arg[:i]), arg[i+1:]
			}
			f.Params = append(f.Params, p)
			last = &f.Params[len(f.Params)-1].Description
		case "type":
			types[arg] = desc
		case "returns", "return":
			if f.Returns == nil {
				f.Returns = &schema.DocType{}
			}
			f.Returns.Description = desc
			last = &f.Returns.Description
		case "rtype":
			if f.Returns == nil {
				f.Returns = &schema.DocType{}
			}
			f.Returns.Type = desc
		case "raises", "raise", "except", "exception":
			f.Raises = append(f.Raises, schema.DocType{Type: arg, Description: desc})
			last = &f.Raises[len(f.Raises)-1].Description
		}
	}
	for i := range f.Params {
		if t, ok := types[f.Params[i].Name]; ok && f.Params[i].Type == "" {
			f.Params[i].Type = t
		}
	}
	return f
}

func parseJSDoc(lines []string) schema.DocFields {
	var f schema.DocFields
	var last *string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "@") {
			if last != nil && t != "" {
				*last = strings.TrimSpace(*last + " " + t)
			}
			continue
		}
		last = nil
		m := jsdocTagRe.FindStringSubmatch(t)
		if m == nil {
			continue
		}
		tag, typ, rest := m[1], strings.TrimSpace(m[2]), strings.TrimSpace(m[3])
		switch tag {
		case "param", "arg", "argument":
			name, desc, _ := strings.Cut(rest, " ")
			name = strings.TrimSuffix(strings.TrimPrefix(name, "["), "]")
			if i := strings.IndexByte(name, '='); i >= 0 {
				name = name[:i]
			}
			f.Params = append(f.Params, schema.DocParam{Name: name, Type: typ, Description: trimDash(desc)})
			last = &f.Params[len(f.Params)-1].Description
		case "returns", "return":
			f.Returns = &schema.DocType{Type: typ, Description: trimDash(rest)}
			last = &f.Returns.Description
		case "throws", "throw", "exception":
			f.Raises = append(f.Raises, schema.DocType{Type: typ, Description: trimDash(rest)})
			last = &f.Raises[len(f.Raises)-1].Description
		case "file", "fileoverview", "overview", "description", "desc":
			f.Summary = strings.TrimSpace(f.Summary + " " + rest)
			last = &f.Summary
		}
	}
	return f
}

func trimDash(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "- ")
	return strings.TrimSpace(s)
}

// newDocstring builds a Docstring from cleaned content.
func newDocstring(sym, line int, content string, jsdoc bool) Docstring {
	format := detectFormat(content, jsdoc)
	return Docstring{Symbol: sym, Line: line, Content: content, Format: format, Fields: parseDoc(content, format)}
}

// pyDocContent cleans a Python docstring literal like inspect.cleandoc.
func pyDocContent(lit string) string {
	return dedent(strings.Split(strings.ReplaceAll(pyStringValue(lit), "\t", "        "), "\n"))
}
