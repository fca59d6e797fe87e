package ask

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// ErrorAnchors are what a diagnostic question can be searched by: the
// exception types it names, the error messages it quotes and the frames
// of a stack trace it holds.
type ErrorAnchors struct {
	Types    []string `json:"types,omitempty"`    // UsageError, ValueError, ErrNotFound
	Messages []string `json:"messages,omitempty"` // quoted, or following "SomeError: "
	Frames   []Frame  `json:"frames,omitempty"`   // in the order written
}

// Frame is one file:line(:function) of a stack trace, the path as written
// (absolute, or relative to some checkout).
type Frame struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Func string `json:"func,omitempty"`
}

func (f Frame) String() string {
	if f.Func == "" {
		return fmt.Sprintf("%s:%d", f.Path, f.Line)
	}
	return fmt.Sprintf("%s:%d in %s", f.Path, f.Line, f.Func)
}

// Strings lists the anchors as Retrieval.Anchors keeps them.
func (a ErrorAnchors) Strings() []string {
	out := slices.Clone(a.Types)
	for _, m := range a.Messages {
		out = append(out, strconv.Quote(m))
	}
	for _, f := range a.Frames {
		out = append(out, f.String())
	}
	return out
}

// Empty says whether the question named no error at all.
func (a ErrorAnchors) Empty() bool {
	return len(a.Types) == 0 && len(a.Messages) == 0 && len(a.Frames) == 0
}

var (
	// Err[A-Z]: Go's sentinel errors (ErrNotFound), not the words Error
	// and Errors.
	errorTypeRe = regexp.MustCompile(`\b(\w+Error|\w+Exception|Err[A-Z]\w*)\b`)
	// The message after "SomeError: " when it is not quoted, up to the end
	// of the sentence or the line.
	typedMessageRe = regexp.MustCompile(`\b(?:\w+Error|\w+Exception|Err[A-Z]\w*):[ \t]*([^\n"'` + "`" + `?!]+)`)
	// A quoted message: double quotes, backquotes, typographic quotes, or
	// single quotes standing apart from words (not the one of "don't").
	quotedRes = []*regexp.Regexp{
		regexp.MustCompile(`"([^"\n]{3,})"`),
		regexp.MustCompile("`([^`\n]{3,})`"),
		regexp.MustCompile(`“([^”\n]{3,})”`),
		regexp.MustCompile(`(?:^|[^\w])'([^'\n]{3,}?)'(?:[^\w]|$)`),
	}
	// Python: File "pkg/core.py", line 12, in parse_args
	pythonFrameRe = regexp.MustCompile(`File "([^"\n]+)", line (\d+)(?:, in ([\w.<>]+))?`)
	// Go and most others: pkg/store.go:12 (optionally :col, then the
	// function as ":func" or " in func"). A Go panic names the function on
	// the line before.
	fileLineRe   = regexp.MustCompile(`([\w.\-/\\]+\.(?:go|py|pyi|js|jsx|mjs|ts|tsx|java|kt|rb|rs|c|h|cc|cpp|hpp|cs|php|swift|scala)):(\d+)(?::\d+)?(?:(?::|,? in )([A-Za-z_][\w.]*))?`)
	goFuncLineRe = regexp.MustCompile(`^\s*(?:[\w./-]+/)?([\w.*()\[\]]+)\(.*\)\s*$`)
)

// Anchors extracts the error anchors of a question: exception types
// (\w+Error, \w+Exception, Err\w+), quoted messages and the message after
// "SomeError:", and file:line:function frames (Python's `File "x.py",
// line 3, in f`, Go's `x.go:12`). Each is listed once, in the order
// written.
func Anchors(question string) ErrorAnchors {
	var a ErrorAnchors
	rest := question
	for _, m := range pythonFrameRe.FindAllStringSubmatchIndex(question, -1) {
		a.Frames = appendFrame(a.Frames, Frame{Path: question[m[2]:m[3]], Line: atoi(question[m[4]:m[5]]), Func: group(question, m, 3)})
	}
	// The quoted paths of Python frames are no messages.
	rest = pythonFrameRe.ReplaceAllString(rest, " ")
	lines := strings.Split(rest, "\n")
	for i, line := range lines {
		for _, m := range fileLineRe.FindAllStringSubmatch(line, -1) {
			f := Frame{Path: m[1], Line: atoi(m[2]), Func: m[3]}
			if f.Func == "" && strings.HasSuffix(f.Path, ".go") && i > 0 {
				f.Func = goFunc(lines[i-1])
			}
			a.Frames = appendFrame(a.Frames, f)
		}
	}
	rest = fileLineRe.ReplaceAllString(rest, " ")
	for _, m := range errorTypeRe.FindAllStringSubmatch(rest, -1) {
		a.Types = appendNew(a.Types, m[1])
	}
	for _, re := range quotedRes {
		for _, m := range re.FindAllStringSubmatch(rest, -1) {
			a.Messages = appendNew(a.Messages, strings.TrimSpace(m[1]))
		}
	}
	for _, m := range typedMessageRe.FindAllStringSubmatch(rest, -1) {
		if msg := strings.TrimRight(strings.TrimSpace(m[1]), ".,;:"); len(msg) >= 3 {
			a.Messages = appendNew(a.Messages, msg)
		}
	}
	return a
}

// goFunc is the function a Go panic trace names on the line before a
// file:line ("main.(*Server).Load(...)" → "Load"), "" when that line is
// no call.
func goFunc(line string) string {
	m := goFuncLineRe.FindStringSubmatch(line)
	if m == nil {
		return ""
	}
	name := m[1]
	if i := strings.LastIndex(name, "."); i >= 0 {
		name = name[i+1:]
	}
	return strings.Trim(name, "*()")
}

func group(s string, m []int, i int) string {
	if m[2*i] < 0 {
		return ""
	}
	return s[m[2*i]:m[2*i+1]]
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func appendNew(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

func appendFrame(list []Frame, f Frame) []Frame {
	if slices.Contains(list, f) {
		return list
	}
	return append(list, f)
}
