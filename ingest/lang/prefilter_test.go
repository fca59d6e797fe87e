package lang

import (
	"regexp"
	"strings"
	"testing"
)

// The comment and docstring regexps are guarded by cheap tests
// (comments.go, docstring.go). These are the unguarded originals: the
// guarded functions must always agree with them.

func classifyRegexp(text string) (string, bool) {
	rationale := rationaleRe.MatchString(text)
	m := ""
	if lm := leadingRe.FindStringSubmatch(text); lm != nil {
		upper := lm[1] == strings.ToUpper(lm[1])
		if upper || strings.HasSuffix(lm[0], ":") || strings.HasSuffix(lm[0], "(") || len(lm[0]) == len(text) {
			m = strings.ToUpper(lm[1])
		}
	}
	if m == "" {
		m = markerRe.FindString(text)
	}
	if m != "" {
		return markerKind(m), rationale
	}
	for _, b := range bugRefRe.FindAllStringSubmatch(text, -1) {
		if b[1] == "" || !notTickets[b[1]] {
			return CommentBugRef, rationale
		}
	}
	if rationale {
		return CommentRationale, true
	}
	return CommentGeneral, false
}

func skipCommentRegexp(text string) bool {
	return text == "" || pragmaRe.MatchString(text) || !wordRe.MatchString(text)
}

func detectFormatRegexp(content string, jsdoc bool) string {
	isNumpyHeader := func(t, next string) bool {
		return numpyHeaderRe.MatchString(t) && regexpUnderline(strings.TrimSpace(next))
	}
	lines := strings.Split(content, "\n")
	numpy, google := false, false
	for i := 0; i+1 < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		numpy = numpy || isNumpyHeader(t, lines[i+1])
		if googleHeaderRe.MatchString(t) {
			if next := nextNonBlank(lines, i+1); next >= 0 && indent(lines[next]) > indent(lines[i]) {
				google = true
			}
		}
	}
	switch {
	case jsdoc:
		return FormatJSDoc
	case sphinxRe.MatchString(content):
		return FormatSphinx
	case numpy:
		return FormatNumpy
	case google:
		return FormatGoogle
	case jsdocRe.MatchString(content):
		return FormatJSDoc
	}
	return FormatPlain
}

func summaryRegexp(lines []string) string {
	return firstParagraph(lines, func(lines []string, i int, t string) bool {
		return strings.HasPrefix(t, "@") || sphinxFieldRe.MatchString(t) || googleHeaderRe.MatchString(t) ||
			(i+1 < len(lines) && numpyHeaderRe.MatchString(t) && regexpUnderline(strings.TrimSpace(lines[i+1])))
	})
}

// underlineRe is the numpydoc underline regexp isUnderline replaced.
var underlineRe = regexp.MustCompile(`^-{3,}$`)

func regexpUnderline(t string) bool { return underlineRe.MatchString(t) }

var prefilterSeeds = []string{
	"", " ", "#", "---", "// x", "TODO", "todo: x", "Todo(bob) y", "NOTE that", "Note that x", "nb", "NB:", "xxx",
	"FIXME later", "a TODO b", "aTODO", "HACK", "hack", "BUG 12", "bug #12", "Issue 7", "ticket12", "see #12",
	"a#12", "&#12", "GH-3", "ABC-12 here", "UTF-8 text", "RFC-2616", "/issues/42", "/-/issues/x1", "/browse/AB-1",
	"because", "BECAUSE of x", "so that", "so  that", "work around", "workaround", "we need", "needs to", "must",
	"mustard", "to avoid", "in order to", "due to", "prevents", "the reason", "reason: x", "intentionally",
	"deliberately", "on purpose", "required by", "to ensure", "to make sure", "why", "whyever",
	"ſo that", "becauſe", "hac\u212a", "Tic\u212aet 12", "bug\u00a012", "noqa", "noqa: E501", "type: ignore",
	"pylint: disable", "fmt: off", "fmt:skip", "-*- coding: utf-8 -*-", "!/usr/bin/env python", "eslint-disable",
	"@ts-ignore", "istanbul ignore", "go:generate x", "nolint", "+build linux", "coverage: ignore", "c8 ignore",
	"***", "é", "日本", "—", "1", "_", "x\ny", ":param x: y", "  :returns: z", ":raises ValueError: v",
	"Args:\n    x: y", "Args :\n  x", "Returns:\nx", "Parameters\n----------\nx : int", "Notes\n---",
	"@param {int} x", " @returns y", "Sum.\n:param x: y", "Sum\nArgs:\n  x", "Sum\nNotes\n-----", "Summary.\n\n@throws E", "a:b", "Example:\n\n    >>> f()",
}

func TestPrefiltersAgreeWithRegexps(t *testing.T) {
	for _, s := range prefilterSeeds {
		checkPrefilters(t, s)
	}
}

func FuzzPrefilters(f *testing.F) {
	for _, s := range prefilterSeeds {
		f.Add(s)
	}
	f.Fuzz(checkPrefilters)
}

func checkPrefilters(t *testing.T, s string) {
	k, r := classify(s)
	if wk, wr := classifyRegexp(s); k != wk || r != wr {
		t.Errorf("classify(%q) = %s %v, want %s %v", s, k, r, wk, wr)
	}
	if got, want := skipComment(s), skipCommentRegexp(s); got != want {
		t.Errorf("skipComment(%q) = %v, want %v", s, got, want)
	}
	if got, want := detectFormat(s, false), detectFormatRegexp(s, false); got != want {
		t.Errorf("detectFormat(%q) = %s, want %s", s, got, want)
	}
	lines := strings.Split(s, "\n")
	if got, want := summary(lines), summaryRegexp(lines); got != want {
		t.Errorf("summary(%q) = %q, want %q", s, got, want)
	}
}
