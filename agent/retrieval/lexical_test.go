package retrieval

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// A one-off search counts only the query's terms: its matches, scores and
// order are the full index's, over random documents and queries (words
// shared, repeated, absent, in more than half the documents).
func TestSearchDocsScoresAsTheFullIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	vocab := []string{"parse", "token", "cache", "load", "store", "query", "retry", "limit", "walk", "tree"}
	words := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = vocab[rng.IntN(len(vocab))]
		}
		return out
	}
	for i := range 300 {
		docs := make([]Document, rng.IntN(12))
		for j := range docs {
			docs[j] = Document{Path: fmt.Sprintf("f%d.py", j), Text: words(rng.IntN(20))}
		}
		query := append(words(rng.IntN(5)), "absent")
		for _, min := range []int{1, 2} {
			want := newBM25(docs).search(query, min)
			if got := searchDocs(docs, query, min); !reflect.DeepEqual(got, want) {
				t.Fatalf("case %d, min %d: searchDocs = %+v, want %+v", i, min, got, want)
			}
		}
	}
}
