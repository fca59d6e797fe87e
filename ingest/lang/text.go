package lang

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

const (
	maxSignature   = 300 // bytes kept of a signature line (minified code has huge lines)
	maxErrorString = 200 // bytes kept of an error message
)

// valid makes s valid UTF-8: source files are bytes and may hold anything.
func valid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// truncate cuts s to at most n bytes without splitting a rune.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// lineFrom returns the text from offset start to the end of its line (or to
// end, if sooner), trimmed and capped.
func lineFrom(src []byte, start, end uint32) string {
	if int(end) > len(src) {
		end = uint32(len(src))
	}
	if start > end {
		return ""
	}
	rest := src[start:end]
	if i := indexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	return truncate(strings.TrimSpace(string(rest)), maxSignature)
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// ownLine reports whether only blanks precede offset start on its line.
func ownLine(src []byte, start uint32) bool {
	for i := int(start) - 1; i >= 0 && i < len(src); i-- {
		switch src[i] {
		case '\n':
			return true
		case ' ', '\t', '\r', '\f':
		default:
			return false
		}
	}
	return true
}

// pyStringValue strips a Python string literal's prefix and quotes; escapes
// are kept as written.
func pyStringValue(lit string) string {
	i := 0
	for i < len(lit) && strings.IndexByte("rRuUbBfFtT", lit[i]) >= 0 {
		i++
	}
	s := lit[i:]
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if strings.HasPrefix(s, q) {
			s = s[len(q):]
			return strings.TrimSuffix(s, q)
		}
	}
	return s
}

// goStringValue returns the value of a Go string literal, or the text
// between the quotes when it does not unquote (a broken literal).
func goStringValue(lit string) string {
	if v, err := strconv.Unquote(lit); err == nil {
		return v
	}
	if len(lit) >= 2 {
		return lit[1 : len(lit)-1]
	}
	return lit
}

// jsStringValue strips the quotes or backticks of a JS/TS string or template
// literal; escapes and ${} substitutions are kept as written.
func jsStringValue(lit string) string {
	if len(lit) >= 2 {
		switch lit[0] {
		case '"', '\'', '`':
			if lit[len(lit)-1] == lit[0] {
				return lit[1 : len(lit)-1]
			}
			return lit[1:]
		}
	}
	return lit
}

// appendUnique appends s to list unless it is empty or already there.
func appendUnique(list []string, s string) []string {
	if s == "" {
		return list
	}
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// isUpperStart reports whether the last dotted segment of name starts with
// an upper-case ASCII letter: the convention for exception and error types.
func isUpperStart(name string) bool {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	return name != "" && name[0] >= 'A' && name[0] <= 'Z'
}

// hasLogReceiver reports whether a call receiver looks like a logger:
// logger, log, self.log, LOG, _logger, slog, logging...
func hasLogReceiver(recv string) bool {
	if i := strings.LastIndexByte(recv, '.'); i >= 0 {
		recv = recv[i+1:]
	}
	return strings.Contains(strings.ToLower(recv), "log")
}

// sanitize passes every string in facts through clean.
func sanitize(f *FileFacts, clean func(string) string) {
	f.Path = clean(f.Path)
	for i := range f.Symbols {
		s := &f.Symbols[i]
		s.Name, s.Signature, s.Receiver = clean(s.Name), clean(s.Signature), clean(s.Receiver)
		cleanAll(clean, s.Raises)
		cleanAll(clean, s.ErrorStrings)
		cleanAll(clean, s.Mutates)
	}
	for i := range f.Docstrings {
		d := &f.Docstrings[i]
		d.Content = clean(d.Content)
		d.Fields.Summary = clean(d.Fields.Summary)
		for j := range d.Fields.Params {
			p := &d.Fields.Params[j]
			p.Name, p.Type, p.Description = clean(p.Name), clean(p.Type), clean(p.Description)
		}
		if r := d.Fields.Returns; r != nil {
			r.Type, r.Description = clean(r.Type), clean(r.Description)
		}
		for j := range d.Fields.Raises {
			r := &d.Fields.Raises[j]
			r.Type, r.Description = clean(r.Type), clean(r.Description)
		}
	}
	for i := range f.Comments {
		f.Comments[i].Content = clean(f.Comments[i].Content)
	}
	for i := range f.Imports {
		im := &f.Imports[i]
		im.Module, im.Alias = clean(im.Module), clean(im.Alias)
		for j := range im.Names {
			im.Names[j].Name, im.Names[j].Alias = clean(im.Names[j].Name), clean(im.Names[j].Alias)
		}
	}
	for i := range f.References {
		f.References[i].Name = clean(f.References[i].Name)
	}
}

func cleanAll(clean func(string) string, list []string) {
	for i, s := range list {
		list[i] = clean(s)
	}
}

// isErrorType reports names such as ValueError, errors.NotFoundError,
// RuntimeException, UserWarning.
func isErrorType(name string) bool {
	return isUpperStart(name) && (strings.HasSuffix(name, "Error") || strings.HasSuffix(name, "Exception"))
}
