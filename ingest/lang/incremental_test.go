package lang

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// A file parsed from the tree of its previous version has the facts of a
// parse from scratch, version after version: edits at the start, middle
// and end, a syntax error and its fix (parsed from scratch, not kept), a
// BOM, another file's whole content, an empty file.
func TestExtractFromHasTheFactsOfAFreshParse(t *testing.T) {
	for _, name := range []string{"store.py", "store.go", "app.jsx", "widget.ts", "view.tsx"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			src := string(b)
			lines := strings.SplitAfter(src, "\n")
			mid := len(lines) / 2
			comment := map[string]string{".py": "# ", ".go": "// ", ".jsx": "// ", ".ts": "// ", ".tsx": "// "}[filepath.Ext(name)]
			versions := []struct {
				src         string
				keep, reuse bool // a tree is kept; the parse reused the base
			}{
				{src, true, false},
				{src + "\n" + comment + "appended\n", true, true},
				{strings.Join(lines[:mid], "") + comment + "middle\n" + strings.Join(lines[mid:], ""), true, true},
				{comment + "first line\n" + strings.Join(lines[:mid], "") + strings.Join(lines[mid:], ""), true, true},
				{strings.Join(lines[:mid], "") + "(((\n" + strings.Join(lines[mid:], ""), false, false},
				{src, true, false}, // after an error no tree was kept: from scratch
				{strings.ReplaceAll(src, "\n\n", "\n\n\n"), true, true},
				{"\uFEFF" + src, true, true},
				{"", true, true},
				{src, true, true},
			}
			x, err := New(LanguageOf(name))
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			var base *Tree
			for i, v := range versions {
				want := extract(t, LanguageOf(name), v.src)
				before := x.(incremental).engine().fromBase
				got, kept, err := ExtractFrom(x, name, []byte(v.src), base)
				if err != nil {
					t.Fatalf("version %d: %v", i, err)
				}
				got.Path = want.Path
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("version %d: the facts parsed from the previous version's tree differ from a fresh parse's:\n got %v\nwant %v",
						i, symbolLines(got), symbolLines(want))
				}
				if reused := x.(incremental).engine().fromBase > before; reused != v.reuse {
					t.Errorf("version %d: reused the base %v, want %v", i, reused, v.reuse)
				}
				if (kept != nil) != v.keep {
					t.Errorf("version %d: kept a tree %v, want %v", i, kept != nil, v.keep)
				}
				base.Close()
				base = kept
			}
			base.Close()
		})
	}
}

// Random line edits, each version parsed from the tree of the one
// before, give a fresh parse's facts every time.
func TestExtractFromRandomEdits(t *testing.T) {
	for _, name := range []string{"store.py", "store.go", "widget.ts"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(string(b), "\n")
			r := rand.New(rand.NewPCG(7, uint64(len(name))))
			x, err := New(LanguageOf(name))
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			var base *Tree
			reused := 0
			orig := lines
			comment := map[string]string{".py": "# ", ".go": "// ", ".ts": "// "}[filepath.Ext(name)]
			for i := range 150 {
				cur := slices.Clone(lines)
				switch k := r.IntN(len(cur) + 1); r.IntN(5) {
				case 0: // delete a line: often a syntax error
					if k < len(cur) {
						cur = append(cur[:k], cur[k+1:]...)
					}
				case 1: // back to the first version
					cur = slices.Clone(orig)
				case 2: // change a word
					if k < len(cur) {
						cur[k] = strings.Replace(cur[k], "e", "ee", 1)
					}
				default: // a comment line
					cur = append(cur[:k], append([]string{comment + "note\n"}, cur[k:]...)...)
				}
				lines = cur
				src := strings.Join(lines, "")
				want := extract(t, LanguageOf(name), src)
				before := x.(incremental).engine().fromBase
				got, kept, err := ExtractFrom(x, name, []byte(src), base)
				if err != nil {
					t.Fatal(err)
				}
				got.Path = want.Path
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("edit %d: facts differ from a fresh parse's:\n got %v\nwant %v", i, symbolLines(got), symbolLines(want))
				}
				if x.(incremental).engine().fromBase > before {
					reused++
				}
				base.Close()
				base = kept
			}
			base.Close()
			if reused < 20 {
				t.Errorf("only %d of 150 versions were parsed from a base", reused)
			}
		})
	}
}
