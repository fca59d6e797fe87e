package linediff

import (
	"fmt"
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
