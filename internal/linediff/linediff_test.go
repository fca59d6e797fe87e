package linediff

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestHunks(t *testing.T) {
	cases := []struct {
		name          string
		parent, child string
		want          []Hunk
	}{
		{"same", "a\nb\n", "a\nb\n", nil},
		{"change", "a\nb\nc\n", "a\nB\nc\n", []Hunk{{2, 1, 2, 1}}},
		{"insert at top", "a\n", "x\na\n", []Hunk{{0, 0, 1, 1}}},
		{"insert in the middle", "a\nb\n", "a\nx\ny\nb\n", []Hunk{{1, 0, 2, 2}}},
		{"append", "a\n", "a\nb\n", []Hunk{{1, 0, 2, 1}}},
		{"delete", "a\nb\nc\n", "a\nc\n", []Hunk{{2, 1, 1, 0}}},
		{"delete all", "a\nb\n", "", []Hunk{{1, 2, 0, 0}}},
		{"no final newline added", "a\nb", "a\nb\n", []Hunk{{2, 1, 2, 1}}},
		{"two hunks", "a\nb\nc\nd\ne\n", "A\nb\nc\nd\nE\n", []Hunk{{1, 1, 1, 1}, {5, 1, 5, 1}}},
		{"crlf", "a\r\nb\r\n", "a\r\nc\r\n", []Hunk{{2, 1, 2, 1}}},
	}
	for _, c := range cases {
		if got := Hunks([]byte(c.parent), []byte(c.child)); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: Hunks = %v, want %v", c.name, got, c.want)
		}
	}
}

// Past maxEdits the trimmed middle is one hunk.
func TestHunksWithinMakesOneHunkPastItsBound(t *testing.T) {
	parent, child := []byte("a\nb\nc\nd\ne\n"), []byte("A\nb\nc\nd\nE\n")
	if got := fmt.Sprint(HunksWithin(parent, child, 1)); got != fmt.Sprint([]Hunk{{1, 5, 1, 5}}) {
		t.Errorf("HunksWithin(..., 1) = %s, want one hunk over the middle", got)
	}
	if got := fmt.Sprint(HunksWithin(parent, child, 4)); got != fmt.Sprint([]Hunk{{1, 1, 1, 1}, {5, 1, 5, 1}}) {
		t.Errorf("HunksWithin(..., 4) = %s, want two hunks", got)
	}
}

// referenceHunks is Hunks as first written: every line of both sides
// split and numbered, the equal ends trimmed on the numbers. The
// in-place trimming must give the same hunks (the edit script and the
// hunks made of it are the same code).
func referenceHunks(parent, child []byte, maxEdits int) []Hunk {
	split := func(b []byte) []string {
		var out []string
		for len(b) > 0 {
			i := bytes.IndexByte(b, '\n') + 1
			if i == 0 {
				i = len(b)
			}
			out = append(out, string(b[:i]))
			b = b[i:]
		}
		return out
	}
	ids := map[string]int{}
	number := func(lines []string) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			if _, ok := ids[l]; !ok {
				ids[l] = len(ids)
			}
			out[i] = ids[l]
		}
		return out
	}
	a, b := number(split(parent)), number(split(child))
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	x, y := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(x) == 0 && len(y) == 0 {
		return nil
	}
	return hunksOf(myers(x, y, maxEdits), len(y), pre)
}

// Random versions of a file made of few distinct lines (so that equal
// lines abound at both ends and in the middle), with and without a last
// '\n', one an edit of the other: the hunks are the reference's.
func TestHunksAgreeWithSplittingEveryLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "b", "c", "a b", "", "x"}
	file := func(n int) []byte {
		var b bytes.Buffer
		for i := range n {
			b.WriteString(pieces[rng.IntN(len(pieces))])
			if i < n-1 || rng.IntN(2) == 0 {
				b.WriteByte('\n')
			}
		}
		return b.Bytes()
	}
	for i := range 5000 {
		parent := file(rng.IntN(12))
		child := slices.Clone(parent)
		switch rng.IntN(3) {
		case 0:
			child = file(rng.IntN(12))
		case 1: // a few lines replaced in place
			lines := LineStarts(parent)
			if len(lines) > 1 {
				k := rng.IntN(len(lines) - 1)
				child = slices.Concat(parent[:lines[k]], file(rng.IntN(3)), parent[lines[k+1]:])
			}
		}
		for _, max := range []int{MaxEdits, 2} {
			if got, want := HunksWithin(parent, child, max), referenceHunks(parent, child, max); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("case %d, maxEdits %d: %q → %q: Hunks = %v, want %v", i, max, parent, child, got, want)
			}
		}
	}
}

func TestLineStarts(t *testing.T) {
	for in, want := range map[string][]int{"": {0}, "a": {0, 1}, "a\n": {0, 2}, "a\nbc": {0, 2, 4}, "\n\n": {0, 1, 2}} {
		if got := LineStarts([]byte(in)); !slices.Equal(got, want) {
			t.Errorf("LineStarts(%q) = %v, want %v", in, got, want)
		}
	}
}
