package bootstrap

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/linediff"
	"github.com/cra-dev/cra/kb/schema"
)

// randomText is lines drawn from a small alphabet, so that lines repeat
// and a change's context is rarely unique at first.
func randomText(rng *rand.Rand, lines int) []byte {
	alphabet := []string{"}\n", "\n", "return x\n", "x += 1\n", "if x:\n", "pass\n", "def f():\n", "# note\n"}
	var b bytes.Buffer
	for range lines {
		b.WriteString(alphabet[rng.IntN(len(alphabet))])
	}
	if rng.IntN(8) == 0 && b.Len() > 0 {
		b.Truncate(b.Len() - 1) // no final newline
	}
	return b.Bytes()
}

// mutate applies a few random line insertions, deletions and changes.
func mutate(rng *rand.Rand, text []byte) []byte {
	lines := linesOf(text)
	for range 1 + rng.IntN(4) {
		i := rng.IntN(len(lines) + 1)
		switch rng.IntN(3) {
		case 0:
			lines = append(lines[:i], append([]string{"new " + strconv.Itoa(rng.IntN(3)) + "\n"}, lines[i:]...)...)
		case 1:
			if i < len(lines) {
				lines = append(lines[:i], lines[i+1:]...)
			}
		default:
			if i < len(lines) {
				lines[i] = "changed\n"
			}
		}
	}
	return []byte(strings.Join(lines, ""))
}

// Hunks rebuild the child from the parent, and their line counts equal
// the minimal counts `git diff --no-index --numstat` gives on the same
// pairs (git's may exceed the minimum on a few: reported, not failed).
func TestHunksAgainstGit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	rng := rand.New(rand.NewPCG(7, 11))
	dir := t.TempDir()
	differ, below := 0, 0
	const pairs = 200
	for i := range pairs {
		parent := randomText(rng, 5+rng.IntN(40))
		child := mutate(rng, parent)
		hs := linediff.Hunks(parent, child)
		if got := rebuild(parent, child, hs); !bytes.Equal(got, child) {
			t.Fatalf("pair %d: hunks %v do not rebuild the child:\nparent %q\nchild  %q\ngot    %q", i, hs, parent, child, got)
		}
		ins, del := 0, 0
		for _, h := range hs {
			ins, del = ins+h.ChildLines, del+h.ParentLines
		}
		a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
		os.WriteFile(a, parent, 0o644) //nolint:errcheck // git fails below if missing
		os.WriteFile(b, child, 0o644)  //nolint:errcheck
		out, _ := exec.Command("git", "diff", "--no-index", "--numstat", a, b).Output()
		var gi, gd int
		fmt.Sscanf(string(out), "%d\t%d", &gi, &gd)
		if gi != ins || gd != del {
			differ++
			if ins+del > gi+gd {
				below++
				t.Errorf("pair %d: %d+%d lines, git needs only %d+%d", i, ins, del, gi, gd)
			}
		}
	}
	t.Logf("%d of %d pairs differ from git's counts (git above the minimum on each)", differ, pairs)
}

// rebuild applies hunks to parent, taking inserted lines from child.
func rebuild(parent, child []byte, hs []linediff.Hunk) []byte {
	p, c := linesOf(parent), linesOf(child)
	var out []string
	pi := 0
	for _, h := range hs {
		ps, cs := hunkParentStart(h), hunkChildStart(h)
		out = append(out, p[pi:ps]...)
		out = append(out, c[cs:cs+h.ChildLines]...)
		pi = ps + h.ParentLines
	}
	out = append(out, p[pi:]...)
	return []byte(strings.Join(out, ""))
}

func TestEdits(t *testing.T) {
	cases := []struct {
		name          string
		parent, child []byte
		want          []schema.Edit
	}{
		{"created", nil, []byte("a\n"), []schema.Edit{{File: "f", Replace: "a\n"}}},
		{"deleted", []byte("a\n"), nil, []schema.Edit{{File: "f", Search: "a\n"}}},
		{"unchanged", []byte("a\n"), []byte("a\n"), nil},
		{"unique line", []byte("a\nb\nc\n"), []byte("a\nB\nc\n"), []schema.Edit{{File: "f", Search: "b\n", Replace: "B\n"}}},
		{"repeated line needs context", []byte("x\n}\ny\n}\n"), []byte("x\n}\ny\n} // end\n"),
			[]schema.Edit{{File: "f", Search: "y\n}\n", Replace: "y\n} // end\n"}}},
		{"insertion is anchored", []byte("a\nb\n"), []byte("a\nnew\nb\n"), []schema.Edit{{File: "f", Search: "a\nb\n", Replace: "a\nnew\nb\n"}}},
		{"deletion is anchored", []byte("a\n\nb\n"), []byte("a\nb\n"), []schema.Edit{{File: "f", Search: "a\n\nb\n", Replace: "a\nb\n"}}},
		{"no final newline", []byte("a\nb"), []byte("a\nc"), []schema.Edit{{File: "f", Search: "b", Replace: "c"}}},
		{"emptied file", []byte("a\n"), []byte{}, []schema.Edit{{File: "f", Search: "a\n"}}},
		{"empty file filled", []byte{}, []byte("a\n"), []schema.Edit{{File: "f", Replace: "a\n"}}},
		{"whitespace only", []byte("if x:\n  y\n"), []byte("if x:\n    y\n"), []schema.Edit{{File: "f", Search: "  y\n", Replace: "    y\n"}}},
		{"whole file when nothing is unique", []byte("a\na\n"), []byte("a\na\na\n"), []schema.Edit{{File: "f", Search: "a\na\n", Replace: "a\na\na\n"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Edits("f", c.parent, c.child)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", c.want) {
				t.Errorf("Edits = %q, want %q", got, c.want)
			}
			checkRoundTrip(t, c.parent, c.child, got)
		})
	}
}

func checkRoundTrip(t *testing.T, parent, child []byte, edits []schema.Edit) {
	t.Helper()
	got, err := schema.ApplyEdits(parent, edits)
	if err != nil {
		t.Fatalf("Apply: %v\nparent %q\nchild  %q\nedits %q", err, parent, child, edits)
	}
	if !bytes.Equal(got, child) {
		t.Fatalf("edits give %q, want %q (parent %q, edits %q)", got, child, parent, edits)
	}
	for _, e := range edits {
		if e.Search == "" && len(parent) > 0 {
			t.Fatalf("an empty search on a non-empty file: %q", edits)
		}
	}
}

// Edits round-trip on thousands of random pairs where lines repeat a lot.
func TestEditsRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for range 5000 {
		parent := randomText(rng, rng.IntN(30))
		child := mutate(rng, parent)
		edits, err := Edits("f", parent, child)
		if err != nil {
			t.Fatalf("Edits: %v\nparent %q\nchild %q", err, parent, child)
		}
		checkRoundTrip(t, parent, child, edits)
	}
}

func TestApplyErrors(t *testing.T) {
	if _, err := schema.ApplyEdits([]byte("a\na\n"), []schema.Edit{{File: "f", Search: "a\n", Replace: "b\n"}}); err == nil || !strings.Contains(err.Error(), "more than once") {
		t.Errorf("ambiguous search: %v", err)
	}
	if _, err := schema.ApplyEdits([]byte("a\n"), []schema.Edit{{File: "f", Search: "b\n"}}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing search: %v", err)
	}
	if _, err := schema.ApplyEdits([]byte("a\n"), []schema.Edit{{File: "f", Replace: "b\n"}}); err == nil {
		t.Error("an empty search on a non-empty file applied")
	}
	// Overlapping occurrences count: "aa" occurs twice in "aaa".
	if _, err := schema.ApplyEdits([]byte("aaa"), []schema.Edit{{File: "f", Search: "aa"}}); err == nil {
		t.Error("an overlapping double match applied")
	}
}

func FuzzEdits(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte("a\nB\nc\n"))
	f.Add([]byte("}\n}\n}\n"), []byte("}\n}\n"))
	f.Add([]byte("x"), []byte("x\n"))
	f.Add([]byte(""), []byte("\n\n"))
	f.Fuzz(func(t *testing.T, parent, child []byte) {
		edits, err := Edits("f", parent, child)
		if err != nil {
			t.Fatal(err)
		}
		checkRoundTrip(t, parent, child, edits)
	})
}

func BenchmarkEdits(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	var parent bytes.Buffer
	for i := range 2000 {
		fmt.Fprintf(&parent, "line %d of the file\n", i)
	}
	lines := linesOf(parent.Bytes())
	for range 10 {
		lines[rng.IntN(len(lines))] = "changed\n"
	}
	child := []byte(strings.Join(lines, ""))
	b.SetBytes(int64(parent.Len()))
	for b.Loop() {
		if _, err := Edits("f", parent.Bytes(), child); err != nil {
			b.Fatal(err)
		}
	}
}

// linesOf splits b into lines that keep their '\n'.
func linesOf(b []byte) []string {
	at := linediff.LineStarts(b)
	out := make([]string, len(at)-1)
	for i := range out {
		out[i] = string(b[at[i]:at[i+1]])
	}
	return out
}
