package ask

import (
	"cmp"
	"context"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/cra-dev/cra/kb"
)

// maxSites caps the error sites a diagnostic question starts from: an
// exception type raised all over a repository (click raises UsageError in
// dozens of places) is narrowed by its message first, and past this many
// the budget would not show them anyway.
const maxSites = 8

// site is where a diagnostic walk starts: an error site, an error
// string's function, a frame, or (no anchor matched) a search hit.
type site struct {
	id        int64
	step, why string
}

// diagnostic finds the error sites of a question's anchors — raising
// sites, matching error strings, frames looked up directly — then walks
// their callers backward, mutating callers first. The order is the
// CGRAG design's priority: error sites, mutating callers, other callers,
// then the few symbols the question's words name (by name, docstring),
// then what the files involved are for.
func (r *Retriever) diagnostic(ctx context.Context, st *repoState, question string) ([]candidate, []string, error) {
	a := Anchors(question)
	anchors := a.Strings()
	sites := r.errorSites(st, a)
	fallback := len(sites) == 0
	var rest []hit // fallback: what the question's words find past the sites
	if fallback {
		// No anchor the code knows: the question's words find where to start.
		hits, err := r.rank(ctx, st, question)
		if err != nil {
			return nil, nil, err
		}
		for _, h := range hits {
			switch {
			case h.symbol != 0 && len(sites) < fallbackSites:
				sites = append(sites, site{id: h.symbol, step: h.step, why: h.why})
			case len(rest) < fallbackMore:
				rest = append(rest, h)
			}
		}
		anchors = append(anchors, queryTerms(question)...)
	}
	var found []candidate
	var ids []int64
	for _, s := range sites {
		found = append(found, r.sourceOf(st, st.entry(s.id), s.step, s.why))
		ids = append(ids, s.id)
	}
	mutating, plain := r.walkCallers(st, ids)
	found = append(found, mutating...)
	// Without an anchor, the callers of a word match are a guess: the
	// next matches of the words (a bug report names the feature, rarely
	// the error) come before them.
	if len(rest) > 0 {
		d, err := r.docs(ctx, st)
		if err != nil {
			return nil, nil, err
		}
		for _, h := range rest {
			if h.symbol != 0 {
				found = append(found, r.sourceOf(st, st.entry(h.symbol), h.step, h.why))
			} else if c, ok := r.fileDoc(d, h.path, h.step, h.why); ok {
				found = append(found, c)
			}
		}
	}
	found = append(found, plain...)
	if len(sites) > 0 && !fallback {
		// What the question's words name besides (the exception's class,
		// MissingParameter for "Missing parameter") comes last: a call graph
		// with unresolved calls leaves error sites without callers.
		more, err := r.rank(ctx, st, question)
		if err != nil {
			return nil, nil, err
		}
		slices.SortStableFunc(more, func(a, b hit) int { return boolRank(isTest(a.path)) - boolRank(isTest(b.path)) })
		n := 0
		for _, h := range more {
			if h.symbol != 0 && n < fallbackSites {
				found = append(found, r.sourceOf(st, st.entry(h.symbol), h.step, h.why))
				n++
			}
		}
	}
	docs, err := r.filesDocs(ctx, st, found)
	if err != nil {
		return nil, nil, err
	}
	return append(found, docs...), anchors, nil
}

// fallbackSites is how many search hits a diagnostic question without a
// known anchor walks back from; fallbackMore how many more of them it
// shows before the callers that do not assign state.
const (
	fallbackSites = 3
	fallbackMore  = 5
)

// errorSites are the functions the anchors lead to, best first: those
// producing a quoted message (and raising a named type) before those only
// raising a named type, then the frames, innermost first; ties outside
// tests first, then by path and line.
func (r *Retriever) errorSites(st *repoState, a ErrorAnchors) []site {
	type hit struct {
		site
		score int
	}
	var hits []hit
	if len(a.Types) > 0 || len(a.Messages) > 0 {
		msgs := make([]messagePattern, len(a.Messages))
		for i, m := range a.Messages {
			msgs[i] = newMessagePattern(m)
		}
		for i := range st.entries {
			e := &st.entries[i]
			typ := firstOf(a.Types, e.Raises)
			msg := ""
			for _, es := range e.ErrorStrings {
				if slices.ContainsFunc(msgs, func(m messagePattern) bool { return m.matches(es) }) {
					msg = es
					break
				}
			}
			switch {
			case msg != "" && typ != "":
				hits = append(hits, hit{site{e.ID, StepErrorSite, "raises " + typ + ": " + quote(msg)}, 3})
			case msg != "":
				hits = append(hits, hit{site{e.ID, StepErrorString, "error string " + quote(msg)}, 2})
			case typ != "":
				hits = append(hits, hit{site{e.ID, StepErrorSite, "raises " + typ}, 1})
			}
		}
	}
	slices.SortStableFunc(hits, func(x, y hit) int { // entries are by path and line already
		return cmp.Or(y.score-x.score, boolRank(isTest(st.entry(x.id).FilePath))-boolRank(isTest(st.entry(y.id).FilePath)))
	})
	var out []site
	for _, h := range hits[:min(len(hits), maxSites)] {
		out = append(out, h.site)
	}
	for _, f := range innermostFirst(a.Frames) {
		if e := r.frameEntry(st, f); e != nil {
			out = append(out, site{e.ID, StepFrame, "frame " + f.String()})
		}
	}
	return out
}

// innermostFirst orders frames from where the error happened outwards:
// a Python traceback is written innermost last, a Go panic innermost
// first.
func innermostFirst(frames []Frame) []Frame {
	var py, other []Frame
	for _, f := range frames {
		if strings.HasSuffix(f.Path, ".py") {
			py = append(py, f)
		} else {
			other = append(other, f)
		}
	}
	slices.Reverse(py)
	return append(py, other...)
}

// frameEntry looks a frame up directly: in the file it names, the
// function it names whose lines hold the line, else the innermost
// function holding the line, else the function of that name anywhere in
// the file. nil when the file is not indexed or nothing fits.
func (r *Retriever) frameEntry(st *repoState, f Frame) *kb.CodeIndexEntry {
	path := r.resolvePath(f.Path)
	if path == "" {
		return nil
	}
	var holding, named *kb.CodeIndexEntry
	for _, i := range st.byFile[path] {
		e := &st.entries[i]
		isNamed := f.Func != "" && (e.SymbolName == f.Func || e.QualifiedName == f.Func)
		holds := e.LineStart <= f.Line && f.Line <= e.LineEnd
		switch {
		case isNamed && holds:
			return e
		case holds && (holding == nil || e.LineEnd-e.LineStart < holding.LineEnd-holding.LineStart):
			holding = e
		case isNamed && named == nil:
			named = e
		}
	}
	if holding != nil {
		return holding
	}
	return named
}

// walkCallers walks the call graph backward from the sites up to
// MaxCallGraphHops, keeping at most MaxCallersPerHop callers of each
// function per hop, those that mutate state first: they are where the
// state the error trips over is set. It returns the mutating callers and
// the others, each in the order found (by hop).
func (r *Retriever) walkCallers(st *repoState, from []int64) (mutating, plain []candidate) {
	seen := map[int64]bool{}
	for _, id := range from {
		seen[id] = true
	}
	frontier := from
	for hop := 1; hop <= r.Config.MaxCallGraphHops && len(frontier) > 0; hop++ {
		var next []int64
		for _, id := range frontier {
			var callers []int64
			for _, c := range st.callers[id] {
				if !seen[c] {
					callers = append(callers, c)
				}
			}
			slices.SortStableFunc(callers, func(a, b int64) int {
				return boolRank(len(st.entry(b).Mutates) > 0) - boolRank(len(st.entry(a).Mutates) > 0)
			})
			for _, c := range callers[:min(len(callers), r.Config.MaxCallersPerHop)] {
				seen[c] = true
				next = append(next, c)
				e := st.entry(c)
				why := "calls " + st.entry(id).QualifiedName
				if len(e.Mutates) > 0 {
					mutating = append(mutating, r.sourceOf(st, e, CallerStep(hop), why+"; mutates "+strings.Join(e.Mutates, ", ")))
				} else {
					plain = append(plain, r.sourceOf(st, e, CallerStep(hop), why))
				}
			}
		}
		frontier = next
	}
	return mutating, plain
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// firstOf is the first of want that have holds, "" for none.
func firstOf(want, have []string) string {
	for _, w := range want {
		if slices.Contains(have, w) {
			return w
		}
	}
	return ""
}

func quote(s string) string { return `"` + s + `"` }

// messagePattern matches a message from a question against the error
// strings of the code, which are often formats: "Missing parameter:
// {key}" or "get %s: %w" produce "Missing parameter: name".
type messagePattern struct{ msg string }

func newMessagePattern(msg string) messagePattern { return messagePattern{strings.ToLower(msg)} }

// placeholderRe finds the holes of a format: printf verbs, f-string and
// str.format braces, ${} templates.
var placeholderRe = regexp.MustCompile(`%[-+# 0-9.*]*[a-zA-Z]|\$?\{[^{}]*\}`)

// minLiteralLetters is how many letters of a format must be literal for it
// to match a message by its shape: "%s: %s" alone matches anything.
const minLiteralLetters = 4

// matches says whether the error string es can have produced the message
// or a part of it: es holds the message, the message holds es, or the
// message fills es's placeholders.
func (m messagePattern) matches(es string) bool {
	es = strings.ToLower(es)
	if strings.Contains(es, m.msg) || (len(es) >= 8 && strings.Contains(m.msg, es)) {
		return true
	}
	if !placeholderRe.MatchString(es) {
		return false
	}
	holes := placeholderRe.FindAllStringIndex(es, -1)
	var pat strings.Builder
	letters, last := 0, 0
	for _, h := range holes {
		lit := es[last:h[0]]
		letters += countLetters(lit)
		pat.WriteString(regexp.QuoteMeta(lit))
		pat.WriteString(".*?")
		last = h[1]
	}
	letters += countLetters(es[last:])
	pat.WriteString(regexp.QuoteMeta(es[last:]))
	if letters < minLiteralLetters {
		return false
	}
	re, err := regexp.Compile(pat.String())
	return err == nil && re.MatchString(m.msg)
}

func countLetters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}
