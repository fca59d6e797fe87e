package ask

import (
	"cmp"
	"context"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/cra-dev/cra/kb"
)

// maxEntries caps the entry points an exploratory question walks from.
const maxEntries = 3

// exploratory finds the entry points of the question's subject and walks
// their callees forward. The order is the CGRAG design's priority: entry
// points, then what the question names that the walk reached, terminal
// functions (the end of a chain), branch points (two callees or more),
// then the functions in between; then what the files involved are for.
func (r *Retriever) exploratory(ctx context.Context, st *repoState, question string) ([]candidate, []string, error) {
	entries, anchors, err := r.entryPoints(ctx, st, question)
	if err != nil {
		return nil, nil, err
	}
	named := map[string]bool{}
	for _, id := range identRe.FindAllString(question, -1) {
		named[id] = true
	}
	seen := map[int64]bool{}
	var heads, targets, terminal, branch, between []candidate
	for _, ep := range entries {
		if seen[ep.e.ID] || len(heads) == maxEntries {
			continue
		}
		seen[ep.e.ID] = true
		heads = append(heads, r.sourceOf(st, ep.e, StepEntry, ep.why))
		for _, n := range r.walkCallees(st, ep.e.ID, named, seen) {
			e := st.entry(n.id)
			c := r.sourceOf(st, e, CalleeStep(n.hop), "called by "+st.entry(n.parent).QualifiedName)
			switch callees := len(st.callees[n.id]); {
			case named[e.SymbolName] || named[e.QualifiedName]:
				targets = append(targets, c)
			case callees == 0:
				terminal = append(terminal, c)
			case callees >= 2:
				branch = append(branch, c)
			default:
				between = append(between, c)
			}
		}
	}
	found := slices.Concat(heads, targets, terminal, branch, between)
	docs, err := r.filesDocs(ctx, st, found)
	if err != nil {
		return nil, nil, err
	}
	return append(found, docs...), anchors, nil
}

// entryPoint is a function a flow starts from, and why.
type entryPoint struct {
	e   *kb.CodeIndexEntry
	why string
}

// fromRe finds the symbol a question says a flow starts from.
var fromRe = regexp.MustCompile(`(?i)\b(?:from|starting (?:at|from|with)|start(?:s)? (?:at|from|with)|begin(?:s|ning)? (?:at|with))\s+` + "`?" + `([A-Za-z_][\w.]*)`)

// entryPoints are the functions a flow question starts from, best first:
// the symbols it names (the one after "from" first), else those whose
// names or docstrings share its words, else the repository's main
// functions and CLI entry points. Among equals, what nothing calls comes
// first, then public before _private, functions before methods, then
// path and line.
func (r *Retriever) entryPoints(ctx context.Context, st *repoState, question string) ([]entryPoint, []string, error) {
	var names []string
	if m := fromRe.FindStringSubmatch(question); m != nil && len(st.named(m[1])) > 0 {
		names = append(names, m[1])
	}
	for _, id := range identRe.FindAllString(question, -1) {
		if len(st.named(id)) > 0 {
			names = appendNew(names, id)
		}
	}
	anchors := slices.Clone(names)
	var out []entryPoint
	for _, n := range names {
		es := st.named(n)
		slices.SortStableFunc(es, st.entryOrder)
		for _, e := range es {
			out = append(out, entryPoint{e, "named in the question"})
		}
	}
	if len(out) > 0 {
		return out, anchors, nil
	}
	hits, err := r.rank(ctx, st, question)
	if err != nil {
		return nil, nil, err
	}
	var es []*kb.CodeIndexEntry
	why := map[int64]string{}
	for _, h := range hits {
		if h.symbol != 0 && st.entry(h.symbol).SymbolType != "class" {
			es = append(es, st.entry(h.symbol))
			why[h.symbol] = h.why
		}
	}
	if len(es) == 0 {
		es = st.mains()
		for _, e := range es {
			why[e.ID] = "an entry point of the repository"
		}
	}
	// The rank's order stands; entry-likeness only breaks its ties.
	for _, e := range es {
		out = append(out, entryPoint{e, why[e.ID]})
	}
	return out, append(anchors, queryTerms(question)...), nil
}

// entryOrder puts what looks most like an entry point first: not a
// test's, nothing in the repository calls it, public, a function, then by
// path and line.
func (st *repoState) entryOrder(a, b *kb.CodeIndexEntry) int {
	return cmp.Or(boolRank(isTest(a.FilePath))-boolRank(isTest(b.FilePath)),
		boolRank(len(st.callers[a.ID]) > 0)-boolRank(len(st.callers[b.ID]) > 0),
		boolRank(private(a))-boolRank(private(b)), kindRank(a)-kindRank(b),
		strings.Compare(a.FilePath, b.FilePath), cmp.Compare(a.LineStart, b.LineStart))
}

// mains are the repository's entry points when a question names none:
// main functions, cli functions and the functions of __main__.py, main.go
// and cli.py files that nothing calls, in entryOrder.
func (st *repoState) mains() []*kb.CodeIndexEntry {
	var out []*kb.CodeIndexEntry
	for i := range st.entries {
		e := &st.entries[i]
		base := path.Base(e.FilePath)
		isMain := e.SymbolName == "main" || e.SymbolName == "cli" || base == "__main__.py" || base == "main.go" || base == "cli.py"
		if isMain && e.SymbolType != "class" && len(st.callers[e.ID]) == 0 {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, st.entryOrder)
	return out[:min(len(out), maxEntries)]
}

// reached is a function the forward walk reached: at which hop, from
// which caller.
type reached struct {
	id, parent int64
	hop        int
}

// walkCallees walks the call graph forward from id up to
// MaxCallGraphHops, keeping at most MaxCalleesPerHop callees of each
// function per hop: those the question names first, then public before
// _private, functions before methods and classes, by path and line.
// seen is shared between entry points, so a function is shown once.
func (r *Retriever) walkCallees(st *repoState, id int64, named map[string]bool, seen map[int64]bool) []reached {
	var out []reached
	frontier := []int64{id}
	for hop := 1; hop <= r.Config.MaxCallGraphHops && len(frontier) > 0; hop++ {
		var next []int64
		for _, f := range frontier {
			var callees []*kb.CodeIndexEntry
			for _, c := range st.callees[f] {
				if !seen[c] {
					callees = append(callees, st.entry(c))
				}
			}
			slices.SortStableFunc(callees, func(a, b *kb.CodeIndexEntry) int {
				return cmp.Or(boolRank(named[b.SymbolName])-boolRank(named[a.SymbolName]),
					boolRank(private(a))-boolRank(private(b)), kindRank(a)-kindRank(b))
			})
			for _, c := range callees[:min(len(callees), r.Config.MaxCalleesPerHop)] {
				seen[c.ID] = true
				next = append(next, c.ID)
				out = append(out, reached{id: c.ID, parent: f, hop: hop})
			}
		}
		frontier = next
	}
	return out
}

// isTest says whether a path is a test's (tests/, test_x.py, x_test.go,
// x.test.ts, x_spec.rb): what a question asks about is rarely there, so
// its symbols rank after the others'.
func isTest(p string) bool {
	base := path.Base(p)
	stem := strings.TrimSuffix(base, path.Ext(base))
	return strings.HasPrefix(p, "tests/") || strings.HasPrefix(p, "test/") || strings.Contains(p, "/tests/") ||
		strings.Contains(p, "/test/") || strings.HasPrefix(stem, "test_") || strings.HasSuffix(stem, "_test") ||
		strings.HasSuffix(stem, ".test") || strings.HasSuffix(stem, ".spec") || strings.HasSuffix(stem, "_spec")
}
