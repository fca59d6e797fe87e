package curate

import (
	"encoding/binary"
	"hash/fnv"
	"math/rand/v2"
	"sort"
	"strings"
)

// shingleWords is the shingle size: word 5-grams, as in common web-scale
// near-duplicate detection.
const shingleWords = 5

// maxShingleWords bounds the words read of one example: a long completion
// is known by its start.
const maxShingleWords = 4000

// minHasher computes MinHash signatures of bands × rows permutations of
// 64-bit shingle hashes (h·a + b, a odd, over 2^64), from a fixed seed so
// that the same text always gets the same signature.
type minHasher struct {
	a, b        []uint64
	bands, rows int
}

func newMinHasher(bands, rows int) *minHasher {
	rng := rand.New(rand.NewPCG(0x5eed, 0xc0de))
	n := bands * rows
	m := &minHasher{a: make([]uint64, n), b: make([]uint64, n), bands: bands, rows: rows}
	for i := range n {
		m.a[i], m.b[i] = rng.Uint64()|1, rng.Uint64()
	}
	return m
}

// signature of text: the minimum of each permutation over the text's word
// 5-grams (texts shorter than five words are one shingle), each kept as its
// top 16 bits: a signature per example is held for the whole run (a
// million logged examples), and a false match of two minimums costs 2^-16
// of similarity per permutation, far below any threshold's resolution
// (1/128 with 16 bands of 8 rows).
func (m *minHasher) signature(text string) []uint16 {
	words := strings.Fields(strings.ToLower(text))
	if len(words) > maxShingleWords {
		words = words[:maxShingleWords]
	}
	sig := make([]uint64, len(m.a))
	for i := range sig {
		sig[i] = ^uint64(0)
	}
	h := fnv.New64a()
	for i := 0; i+shingleWords <= len(words) || (i == 0 && len(words) > 0); i++ {
		h.Reset()
		for _, w := range words[i:min(i+shingleWords, len(words))] {
			h.Write([]byte(w))
			h.Write([]byte{0})
		}
		x := h.Sum64()
		for j := range sig {
			if v := x*m.a[j] + m.b[j]; v < sig[j] {
				sig[j] = v
			}
		}
	}
	out := make([]uint16, len(sig))
	for i, v := range sig {
		out[i] = uint16(v >> 48)
	}
	return out
}

// similarity estimates the Jaccard similarity of two texts from their
// signatures: the share of permutations whose minimums agree.
func similarity(a, b []uint16) float64 {
	same := 0
	for i := range a {
		if a[i] == b[i] {
			same++
		}
	}
	return float64(same) / float64(len(a))
}

// nearDuplicates groups signatures (LSH: documents sharing one band's rows
// are candidates; a candidate pair at or above threshold is a duplicate)
// and returns, for each document, whether it duplicates one that is kept:
// in each cluster the first document (in the order given) is kept.
func (m *minHasher) nearDuplicates(sigs [][]uint16, threshold float64) []bool {
	parent := make([]int, len(sigs))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	buf := make([]byte, 2*m.rows)
	for band := range m.bands {
		buckets := map[uint64][]int{}
		for doc, sig := range sigs {
			for r := range m.rows {
				binary.LittleEndian.PutUint16(buf[2*r:], sig[band*m.rows+r])
			}
			h := fnv.New64a()
			h.Write(buf)
			k := h.Sum64()
			buckets[k] = append(buckets[k], doc)
		}
		keys := make([]uint64, 0, len(buckets))
		for k := range buckets {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
		for _, k := range keys {
			docs := buckets[k]
			for _, d := range docs[1:] {
				if find(d) != find(docs[0]) && similarity(sigs[docs[0]], sigs[d]) >= threshold {
					ra, rb := find(docs[0]), find(d)
					if ra < rb {
						parent[rb] = ra
					} else {
						parent[ra] = rb
					}
				}
			}
		}
	}
	dup := make([]bool, len(sigs))
	for i := range sigs {
		dup[i] = find(i) != i
	}
	return dup
}
