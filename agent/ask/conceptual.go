package ask

import (
	"cmp"
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/kb"
)

// conceptual ranks descriptions and docstrings by the question's words
// (BM25, retrieval's lexical scoring) fused with symbols whose names share
// them (reciprocal rank fusion), and shows each as a doc: a file's
// description and module docstring, or a symbol's signature and
// docstring.
func (r *Retriever) conceptual(ctx context.Context, st *repoState, question string) ([]candidate, []string, error) {
	hits, err := r.rank(ctx, st, question)
	if err != nil {
		return nil, nil, err
	}
	d, err := r.docs(ctx, st)
	if err != nil {
		return nil, nil, err
	}
	var found []candidate
	for _, h := range hits {
		if h.symbol == 0 {
			if c, ok := r.fileDoc(d, h.path, h.step, h.why); ok {
				found = append(found, c)
			}
			continue
		}
		found = append(found, r.symbolDoc(st, d, st.entry(h.symbol), h.step, h.why))
	}
	return found, queryTerms(question), nil
}

// symbolDoc is a symbol as a doc: its signature and whole docstring.
func (r *Retriever) symbolDoc(st *repoState, d *repoDocs, e *kb.CodeIndexEntry, step, why string) candidate {
	text := e.Signature
	if text == "" {
		text = e.QualifiedName
	}
	if doc := cmp.Or(d.symbol[e.ID], e.Docstring); doc != "" {
		text += "\n" + doc
	}
	return textCandidate(Source{Path: e.FilePath, Start: e.LineStart, End: e.LineEnd, Symbol: e.QualifiedName,
		FileID: r.fileID(e.FilePath), SymbolID: e.ID, Kind: KindDoc, Step: step, Why: why}, text)
}

// hit is one thing the question's words found: a file (symbol 0: its
// description and module docstring) or a symbol.
type hit struct {
	path      string
	symbol    int64
	line      int
	step, why string
	score     float64
}

// rrfK is reciprocal rank fusion's constant (Cormack et al.): a rank r
// adds 1/(k+r), so agreement between the lists counts more than one
// list's top place.
const rrfK = 60

// maxRanked caps the hits rank returns: more than any budget shows.
const maxRanked = 24

// rank is the question's words against the repository: descriptions and
// docstrings by BM25, fused with symbol names by reciprocal rank fusion,
// best first; ties by path and line.
func (r *Retriever) rank(ctx context.Context, st *repoState, text string) ([]hit, error) {
	return r.rankMin(ctx, st, text, 1)
}

// rankMin is rank with the fewest query terms a description, docstring or
// name must share: a gap's search asks for two, so one common word does
// not pass for an answer.
func (r *Retriever) rankMin(ctx context.Context, st *repoState, text string, minTerms int) ([]hit, error) {
	terms := queryTerms(text)
	if len(terms) == 0 {
		return nil, nil
	}
	minTerms = min(minTerms, len(terms))
	lex, err := r.lexical(ctx, st)
	if err != nil {
		return nil, err
	}
	fused := map[string]*hit{}
	key := func(h hit) string { return h.path + "\x00" + strconv.FormatInt(h.symbol, 10) }
	add := func(h hit, rank int) {
		k := key(h)
		if f, ok := fused[k]; ok {
			f.score += 1 / float64(rrfK+rank)
			return
		}
		h.score = 1 / float64(rrfK+rank)
		fused[k] = &h
	}
	for i, m := range lex.index.Search(terms, minTerms) {
		if i == maxRanked {
			break
		}
		h := lex.docs[m.Path]
		h.step, h.why = StepLexical, "shares words with the question: "+strings.Join(m.Matched[:min(3, len(m.Matched))], ", ")
		add(h, i+1)
	}
	for i, h := range r.nameMatches(st, text, terms, minTerms) {
		add(h, i+1)
	}
	out := make([]hit, 0, len(fused))
	for _, h := range fused {
		out = append(out, *h)
	}
	slices.SortFunc(out, func(a, b hit) int {
		return cmp.Or(cmp.Compare(b.score, a.score), strings.Compare(a.path, b.path), cmp.Compare(a.line, b.line), cmp.Compare(a.symbol, b.symbol))
	})
	return out[:min(len(out), maxRanked)], nil
}

// lexicalIndex is the BM25 index of the repository's descriptions and
// docstrings, one document each, built once.
type lexicalIndex struct {
	index retrieval.Lexical
	docs  map[string]hit // document key → what it is
}

func (r *Retriever) lexical(ctx context.Context, st *repoState) (*lexicalIndex, error) {
	d, err := r.docs(ctx, st)
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.lex != nil {
		return st.lex, nil
	}
	lex := &lexicalIndex{docs: map[string]hit{}}
	var docs []retrieval.Document
	for _, p := range d.paths {
		k := "f\x00" + p
		docs = append(docs, retrieval.Document{Path: k, Text: retrieval.Terms(p, d.file[p])})
		lex.docs[k] = hit{path: p}
	}
	for i := range st.entries {
		e := &st.entries[i]
		doc := cmp.Or(d.symbol[e.ID], e.Docstring)
		if doc == "" {
			continue
		}
		k := "s\x00" + strconv.FormatInt(e.ID, 10)
		docs = append(docs, retrieval.Document{Path: k, Text: retrieval.Terms(e.QualifiedName, doc)})
		lex.docs[k] = hit{path: e.FilePath, symbol: e.ID, line: e.LineStart}
	}
	lex.index = retrieval.NewLexical(docs)
	st.lex = lex
	return lex, nil
}

// identRe finds identifiers as a question writes them.
var identRe = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*`)

// nameMatches are the symbols a question names exactly, then those whose
// name shares the most of the question's terms (at least minTerms, or all
// of the name's own), by the share of the name matched; ties outside
// tests first, public before _private, functions before methods before
// classes, then path and line.
func (r *Retriever) nameMatches(st *repoState, text string, terms []string, minTerms int) []hit {
	named := map[string]bool{}
	for _, id := range identRe.FindAllString(text, -1) {
		named[id] = true
	}
	want := map[string]bool{}
	for _, t := range terms {
		want[t] = true
	}
	type match struct {
		hit
		exact   bool
		matched int
		share   float64
		e       *kb.CodeIndexEntry
	}
	var ms []match
	for i := range st.entries {
		e := &st.entries[i]
		exact := named[e.SymbolName] || named[e.QualifiedName]
		nameTerms := st.nameTerms(i)
		var got []string
		for _, t := range nameTerms {
			if want[t] {
				got = append(got, t)
			}
		}
		if !exact && (len(got) == 0 || (len(got) < minTerms && len(got) < len(nameTerms))) {
			continue
		}
		why := "named in the question"
		if !exact {
			why = "name shares words with the question: " + strings.Join(got, ", ")
		}
		share := 0.0
		if len(nameTerms) > 0 {
			share = float64(len(got)) / float64(len(nameTerms))
		}
		ms = append(ms, match{hit{path: e.FilePath, symbol: e.ID, line: e.LineStart, step: StepSymbol, why: why}, exact, len(got), share, e})
	}
	slices.SortStableFunc(ms, func(a, b match) int {
		return cmp.Or(boolRank(b.exact)-boolRank(a.exact), b.matched-a.matched, cmp.Compare(b.share, a.share),
			boolRank(isTest(a.e.FilePath))-boolRank(isTest(b.e.FilePath)),
			boolRank(private(a.e))-boolRank(private(b.e)), kindRank(a.e)-kindRank(b.e))
	})
	out := make([]hit, 0, min(len(ms), maxRanked))
	for _, m := range ms[:min(len(ms), maxRanked)] {
		out = append(out, m.hit)
	}
	return out
}

// nameTerms are the distinct terms of entry i's name, computed once.
func (st *repoState) nameTerms(i int) []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.terms == nil {
		st.terms = make([][]string, len(st.entries))
		for j := range st.entries {
			st.terms[j] = slices.Compact(slices.Sorted(slices.Values(retrieval.Terms(st.entries[j].SymbolName))))
		}
	}
	return st.terms[i]
}

// private says whether a symbol is internal by its language's convention:
// a leading underscore (not a dunder), or a lower-case Go name.
func private(e *kb.CodeIndexEntry) bool {
	n := e.SymbolName
	if strings.HasSuffix(e.FilePath, ".go") {
		return n != "" && n[0] >= 'a' && n[0] <= 'z' && n != "main"
	}
	return strings.HasPrefix(n, "_") && !(strings.HasPrefix(n, "__") && strings.HasSuffix(n, "__"))
}

// kindRank puts functions before methods before classes.
func kindRank(e *kb.CodeIndexEntry) int {
	switch e.SymbolType {
	case "function":
		return 0
	case "method":
		return 1
	}
	return 2
}

// askStopwords are words of questions that say what is asked, not about
// what: they would match every docstring that uses them.
var askStopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`explain explains describe describes work works working happen happens
		happening trace traces tracing flow flows walk walks through call calls called calling mean means
		purpose role responsible handle handles handled implement implements implemented implementation
		function functions method methods module modules class classes code codebase repository repo
		where when why which does doing done show tell give exactly part parts way ways step steps
		need needs definition body logic`) {
		askStopwords[w] = true
	}
}

// queryTerms are the distinct terms of a question or gap (retrieval.Terms)
// without the words that only say what is asked, in order.
func queryTerms(text string) []string {
	var out []string
	for _, t := range retrieval.Terms(text) {
		if !askStopwords[t] && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}
