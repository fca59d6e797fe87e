package retrieval

import (
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// Document is what the lexical tier matches a task against for one file:
// the words of its path, of its symbols' names and of its docstrings.
type Document struct {
	Path string
	Text []string // path, symbol names and docstrings, as the graph holds them
}

// Terms splits text into the terms the lexical tier matches: runs of
// letters and digits, cut again at case changes and underscores
// (parseHTTPHeader → parse, http, header), lower-cased, without short and
// common words. It is how task words and file texts are both read.
func Terms(texts ...string) []string {
	var out []string
	for _, text := range texts {
		for _, word := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			for _, part := range splitCase(word) {
				t := strings.ToLower(part)
				if len(t) >= 3 && !stopword[t] {
					out = append(out, t)
				}
			}
		}
	}
	return out
}

// splitCase cuts an identifier at lower→upper changes and before the last
// capital of an upper-case run (HTTPServer → HTTP, Server).
func splitCase(w string) []string {
	r := []rune(w)
	var out []string
	start := 0
	for i := 1; i < len(r); i++ {
		lowerToUpper := unicode.IsLower(r[i-1]) && unicode.IsUpper(r[i])
		acronymEnd := i+1 < len(r) && unicode.IsUpper(r[i-1]) && unicode.IsUpper(r[i]) && unicode.IsLower(r[i+1])
		digitEdge := unicode.IsDigit(r[i-1]) != unicode.IsDigit(r[i])
		if lowerToUpper || acronymEnd || digitEdge {
			out = append(out, string(r[start:i]))
			start = i
		}
	}
	return append(out, string(r[start:]))
}

// stopword are words too common in tasks and code to say where a change is.
var stopword = toSet(`the and for with from into that this when then than not but are was were been
	have has had does did can could should would will shall may might must use used uses using add
	added adds adding fix fixed fixes fixing make makes made change changes changed update updates
	updated remove removed removes support supports allow allows new old all any some more less
	only also now instead other others its their there here what which while where who how why
	about after before over under out off one two get set def self none true false null nil return
	returns func var let const import from class struct type test tests file files code value values
	default error errors issue bug version docs doc readme see per via just like each`)

// bm25 scores documents against query terms (Okapi BM25, k1 1.2, b 0.75).
type bm25 struct {
	docs  []Document
	tf    []map[string]int
	lens  []int
	df    map[string]int
	avgdl float64
}

func newBM25(docs []Document) *bm25 { return countTerms(docs, nil) }

// searchDocs is newBM25(docs).search(query, minTerms) for one search:
// only the query's terms are counted, the scores the same.
func searchDocs(docs []Document, query []string, minTerms int) []lexicalMatch {
	only := make(map[string]bool, len(query))
	for _, t := range query {
		only[t] = true
	}
	return countTerms(docs, only).search(query, minTerms)
}

// countTerms indexes docs, counting only the terms in only when it is not
// nil (a document's length is all its terms either way).
func countTerms(docs []Document, only map[string]bool) *bm25 {
	ix := &bm25{docs: docs, tf: make([]map[string]int, len(docs)), lens: make([]int, len(docs)), df: map[string]int{}}
	total := 0
	for i, d := range docs {
		var tf map[string]int
		for _, t := range d.Text {
			if only != nil && !only[t] {
				continue
			}
			if tf == nil {
				tf = map[string]int{}
			}
			tf[t]++
		}
		ix.tf[i], ix.lens[i] = tf, len(d.Text)
		total += len(d.Text)
		for t := range tf {
			ix.df[t]++
		}
	}
	if len(docs) > 0 {
		ix.avgdl = float64(total) / float64(len(docs))
	}
	return ix
}

// lexicalMatch is one document's score and the query terms it matched.
type lexicalMatch struct {
	path    string
	score   float64
	matched []string // by descending idf, then alphabetically
}

// search scores every document against the distinct query terms and
// returns those that match at least minTerms of them, best first. A term
// in more than half the documents (a top-level package name, say) tells
// the files apart too little to count.
func (ix *bm25) search(query []string, minTerms int) []lexicalMatch {
	const k1, b = 1.2, 0.75
	var terms []string
	for _, t := range slices.Compact(slices.Sorted(slices.Values(query))) {
		if 2*ix.df[t] <= len(ix.docs) {
			terms = append(terms, t)
		}
	}
	n := float64(len(ix.docs))
	idf := map[string]float64{}
	for _, t := range terms {
		df := float64(ix.df[t])
		idf[t] = math.Log(1 + (n-df+0.5)/(df+0.5))
	}
	var out []lexicalMatch
	for i, d := range ix.docs {
		m := lexicalMatch{path: d.Path}
		for _, t := range terms {
			f := float64(ix.tf[i][t])
			if f == 0 {
				continue
			}
			m.score += idf[t] * f * (k1 + 1) / (f + k1*(1-b+b*float64(ix.lens[i])/ix.avgdl))
			m.matched = append(m.matched, t)
		}
		if len(m.matched) >= minTerms {
			sort.SliceStable(m.matched, func(a, b int) bool { return idf[m.matched[a]] > idf[m.matched[b]] })
			out = append(out, m)
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].score != out[b].score {
			return out[a].score > out[b].score
		}
		return out[a].path < out[b].path
	})
	return out
}

// Lexical is the lexical tier's BM25 scoring over documents of the
// caller's choosing (cra ask ranks descriptions and docstrings one by one,
// not whole files), so both rank words the same way.
type Lexical struct{ ix *bm25 }

// NewLexical indexes docs; a Document's Path is whatever key the caller
// finds its matches by.
func NewLexical(docs []Document) Lexical { return Lexical{ix: newBM25(docs)} }

// LexicalMatch is one document's score and the query terms it matched, by
// descending idf.
type LexicalMatch struct {
	Path    string
	Score   float64
	Matched []string
}

// Search scores every document against the distinct query terms (Terms)
// and returns those matching at least minTerms of them, best first, ties
// by Path.
func (l Lexical) Search(query []string, minTerms int) []LexicalMatch {
	ms := l.ix.search(query, minTerms)
	out := make([]LexicalMatch, len(ms))
	for i, m := range ms {
		out[i] = LexicalMatch{Path: m.path, Score: m.score, Matched: m.matched}
	}
	return out
}
