package lang

import (
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// rawComment is a comment node before merging and classification.
type rawComment struct {
	start   uint32
	line    int // 1-based, first line
	endLine int
	col     int
	own     bool // nothing but blanks before it on its line
	block   bool // /* */ style
	text    string
}

// commentText strips comment markers: #, //, /* */, /** */ and the leading
// " * " of block comment lines.
func commentText(raw string) (text string, block bool) {
	raw = strings.TrimRight(raw, " \t\r\n")
	switch {
	case strings.HasPrefix(raw, "#"):
		return strings.TrimSpace(strings.TrimLeft(raw, "#")), false
	case strings.HasPrefix(raw, "//"):
		return strings.TrimSpace(strings.TrimLeft(raw, "/")), false
	case strings.HasPrefix(raw, "/*"):
		return blockCommentText(raw), true
	}
	return strings.TrimSpace(raw), false
}

// blockCommentText strips /* */ (or /** */) and the leading stars of each
// line, keeping line structure and relative indentation.
func blockCommentText(raw string) string {
	body := strings.TrimPrefix(raw, "/*")
	body = strings.TrimLeft(body, "*")
	body = strings.TrimSuffix(body, "*/")
	lines := strings.Split(body, "\n")
	starred := true
	for _, l := range lines[1:] {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "*") {
			starred = false
		}
	}
	for i, l := range lines {
		l = strings.TrimRight(l, " \t\r")
		if i > 0 && starred {
			l = strings.TrimLeft(l, " \t")
			l = strings.TrimPrefix(l, "*")
			l = strings.TrimPrefix(l, " ")
		}
		lines[i] = l
	}
	if !starred {
		return dedent(lines)
	}
	lines[0] = strings.TrimSpace(lines[0])
	return trimBlankLines(lines)
}

// dedent removes the common indentation of lines after the first (Python's
// inspect.cleandoc) and trims blank lines at both ends.
func dedent(lines []string) string {
	margin := -1
	for _, l := range lines[1:] {
		t := strings.TrimLeft(l, " \t")
		if t == "" {
			continue
		}
		if ind := len(l) - len(t); margin < 0 || ind < margin {
			margin = ind
		}
	}
	lines[0] = strings.TrimSpace(lines[0])
	for i := 1; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t\r")
		if len(l) >= margin && margin > 0 {
			l = l[margin:]
		} else if margin > 0 {
			l = strings.TrimLeft(l, " \t")
		}
		lines[i] = l
	}
	return trimBlankLines(lines)
}

func trimBlankLines(lines []string) string {
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

var (
	// pragmaRe matches tool directives, which are not prose.
	pragmaRe = regexp.MustCompile(`^(?:noqa\b|type:|pylint:|pyright:|mypy:|fmt:\s*(?:on|off|skip)|isort:|pragma\b|-\*-|!|eslint|prettier-ignore|@ts-|istanbul |jshint|jscs:|go:|nolint|lint:|\+build|coverage:|c8 )`)
	// markerRe finds the work markers, upper case as people write them.
	markerRe = regexp.MustCompile(`\b(TODO|FIXME|XXX|HACK|NOTE|BUG)\b`)
	// leadingRe finds a marker opening the comment in any case ("Note:",
	// "todo(bob):").
	leadingRe = regexp.MustCompile(`^(?i:(todo|fixme|xxx|hack|note|nb|bug))(?:\s*[:(]|\b)`)
	bugRefRe  = regexp.MustCompile(`(?:^|[^\w&#/])#\d+\b|\bGH-\d+\b|\b([A-Z][A-Z0-9]+)-\d+\b|(?i:\b(?:bug|issue|ticket)\s*#?\d+\b)|/(?:issues|pull|-/issues|browse)/[\w-]*\d+`)
	// rationaleRe finds words that explain why rather than what.
	rationaleRe = regexp.MustCompile(`(?i)\b(?:because|so that|otherwise|workaround|work around|we need|needs? to|must|to avoid|in order to|due to|to prevent|prevents?|the reason|reason:|intentional(?:ly)?|deliberately|on purpose|required by|to ensure|to make sure|why)\b`)
	wordRe      = regexp.MustCompile(`[\p{L}\p{N}]`)
	// notTickets are upper-case words followed by -digits that are standards
	// and encodings, not issue keys.
	notTickets = map[string]bool{"UTF": true, "SHA": true, "ISO": true, "RFC": true, "AES": true, "HTTP": true, "TLS": true, "SSL": true, "IEEE": true, "ANSI": true, "MD": true, "PEP": true, "ES": true, "ECMA": true, "UCS": true, "CP": true, "WIN": true, "KOI": true, "CRC": true, "HMAC": true, "X": true, "ECMASCRIPT": true, "TCP": true, "IPV": true, "PKCS": true, "ED": true, "MP": true, "H": true}
)

// classify returns a comment's kind and whether it explains a reason.
func classify(text string) (kind string, rationale bool) {
	rationale = isRationale(text)
	if m := marker(text); m != "" {
		return markerKind(m), rationale
	}
	if hasBugRef(text) {
		return CommentBugRef, rationale
	}
	if rationale {
		return CommentRationale, true
	}
	return CommentGeneral, false
}

// markerKind is the kind of a comment with an upper-cased work marker.
func markerKind(m string) string {
	switch m {
	case "TODO":
		return CommentTodo
	case "FIXME", "XXX":
		return CommentFixme
	case "HACK":
		return CommentHack
	case "BUG":
		return CommentBugRef
	default: // NOTE, NB
		return CommentNote
	}
}

// The regexps below run on every comment and were a tenth of extraction
// time. Each is guarded by a cheap test that is true whenever the regexp can
// match, so results are unchanged and most comments never reach the regexp.
// Case-insensitive (?i) patterns are only pre-tested on ASCII text: Unicode
// case folding matches "ſ" for s and the Kelvin sign for k.

// rationaleWords holds, for each alternative of rationaleRe, a lower-case
// substring any match of it contains.
var rationaleWords = []string{"because", "so that", "otherwise", "work", "need", "must", "avoid",
	"order to", "due to", "prevent", "reason", "intentional", "deliberately", "purpose",
	"required by", "ensure", "make sure", "why"}

func isRationale(text string) bool {
	if isASCII(text) && !containsAny(strings.ToLower(text), rationaleWords) {
		return false
	}
	return rationaleRe.MatchString(text)
}

// markerWords are markerRe's words; it is case-sensitive.
var markerWords = []string{"TODO", "FIXME", "XXX", "HACK", "NOTE", "BUG"}

// marker returns the upper-cased work marker of a comment, or "".
func marker(text string) string {
	if m := leadingMarker(text); m != "" {
		return m
	}
	if !containsAny(text, markerWords) {
		return ""
	}
	return markerRe.FindString(text)
}

// leadingMarker returns the marker opening a comment, or "". "Note that..."
// is prose; "Note:", "todo(bob):" and "NOTE that" are markers.
func leadingMarker(text string) string {
	// The markers' first letters fold to ASCII letters only.
	if text == "" || strings.IndexByte("tTfFxXhHnNbB", text[0]) < 0 {
		return ""
	}
	m := leadingRe.FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	upper := m[1] == strings.ToUpper(m[1])
	if upper || strings.HasSuffix(m[0], ":") || strings.HasSuffix(m[0], "(") || len(m[0]) == len(text) {
		return strings.ToUpper(m[1])
	}
	return ""
}

// bugRefWords are the words of bugRefRe's case-insensitive alternative.
var bugRefWords = []string{"bug", "issue", "ticket"}

func hasBugRef(text string) bool {
	// Every alternative needs a digit, and a '#', '-' or '/' or one of
	// the words.
	if !strings.ContainsAny(text, "0123456789") {
		return false
	}
	if !strings.ContainsAny(text, "#-/") && isASCII(text) && !containsAny(strings.ToLower(text), bugRefWords) {
		return false
	}
	for _, m := range bugRefRe.FindAllStringSubmatch(text, -1) {
		if m[1] == "" || !notTickets[m[1]] {
			return true
		}
	}
	return false
}

// pragmaFirst holds the first bytes of pragmaRe's alternatives.
const pragmaFirst = "ntpmfi-!e@jgl+c"

// skipComment reports comments that carry no prose: pragmas, shebangs,
// encoding lines, empty and decoration-only lines.
func skipComment(text string) bool {
	if text == "" {
		return true
	}
	if strings.IndexByte(pragmaFirst, text[0]) >= 0 && pragmaRe.MatchString(text) {
		return true
	}
	// Text that starts with an ASCII letter or digit has a word.
	if c := text[0]; 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
		return false
	}
	return !wordRe.MatchString(text)
}

// containsAny reports whether s contains one of words.
func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// buildComments drops docstring comments and pragmas, merges runs of
// own-line comments, classifies them and attributes each to its innermost
// enclosing symbol.
func (f *file) buildComments() {
	raw := f.comments
	sort.Slice(raw, func(i, j int) bool { return raw[i].start < raw[j].start })
	var out []Comment
	prev := -1 // index into raw of the comment the last output came from
	for i, c := range raw {
		if f.docComments[c.start] || skipComment(c.text) {
			prev = -1
			continue
		}
		at := c.start
		if !c.own {
			// A trailing comment belongs to the code it trails.
			at = lineStart(f.src, c.start)
		}
		sym := f.enclosing(at)
		if prev >= 0 && len(out) > 0 {
			p := raw[prev]
			last := &out[len(out)-1]
			if p.own && c.own && !p.block && !c.block && c.line == p.endLine+1 && c.col == p.col &&
				last.Symbol == sym && leadingMarker(c.text) == "" {
				last.Content += "\n" + c.text
				prev = i
				continue
			}
		}
		out = append(out, Comment{Line: c.line, Symbol: sym, Content: c.text})
		prev = i
	}
	for i := range out {
		out[i].Kind, out[i].IsRationale = classify(out[i].Content)
	}
	f.facts.Comments = out
}

// lineStart returns the offset of the first non-blank byte of the line
// holding offset at.
func lineStart(src []byte, at uint32) uint32 {
	i := int(at)
	for i > 0 && src[i-1] != '\n' {
		i--
	}
	for i < int(at) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return uint32(i)
}
