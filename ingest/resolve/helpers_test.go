package resolve

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cra-dev/cra/ingest/lang"
)

// loadDir builds a Repo from a testdata folder with the real extractors:
// every file becomes a File (files without an extractor keep their language
// and no facts) and every go.mod a GoModules entry.
func loadDir(t testing.TB, root string) *Repo {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = string(src)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return repoOf(t, files)
}

// repoOf builds a Repo from path → source with the real extractors.
func repoOf(t testing.TB, files map[string]string) *Repo {
	t.Helper()
	set := lang.NewSet()
	defer set.Close()
	r := &Repo{GoModules: map[string]string{}}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		src := files[p]
		if filepath.Base(p) == "go.mod" {
			r.GoModules[dirOf(p)] = GoModulePath([]byte(src))
			continue
		}
		f := File{Path: p, Language: lang.LanguageOf(p)}
		e, err := set.ForPath(p)
		if err != nil {
			t.Fatal(err)
		}
		if e != nil {
			facts, err := e.Extract(p, []byte(src))
			if err != nil {
				t.Fatalf("extract %s: %v", p, err)
			}
			if facts.ErrorNodes != 0 {
				t.Fatalf("%s has syntax errors", p)
			}
			f.Imports, f.Symbols, f.References = facts.Imports, facts.Symbols, facts.References
		}
		r.Files = append(r.Files, f)
	}
	return r
}

// dependencies and references run the resolver and check the invariants of
// its output: sorted, deduplicated, indexes in range, no file self-edge.
func dependencies(t testing.TB, r *Repo) []string {
	t.Helper()
	edges := Dependencies(r)
	for i, e := range edges {
		if e.From < 0 || e.From >= len(r.Files) || e.To < 0 || e.To >= len(r.Files) || e.From == e.To || e.Kind != KindImport {
			t.Fatalf("bad edge %+v", e)
		}
		if i > 0 {
			if p := edges[i-1]; p.From > e.From || p.From == e.From && p.To >= e.To {
				t.Fatalf("not sorted or duplicated: %+v then %+v", p, e)
			}
		}
	}
	return depLines(r, edges)
}

func references(t testing.TB, r *Repo) []string {
	t.Helper()
	edges := References(r)
	for i, e := range edges {
		if e.FromFile < 0 || e.FromFile >= len(r.Files) || e.FromSymbol < 0 || e.FromSymbol >= len(r.Files[e.FromFile].Symbols) ||
			e.ToFile < 0 || e.ToFile >= len(r.Files) || e.ToSymbol < 0 || e.ToSymbol >= len(r.Files[e.ToFile].Symbols) {
			t.Fatalf("bad edge %+v", e)
		}
		if i > 0 && compareEdges(edges[i-1], e) >= 0 {
			t.Fatalf("not sorted or duplicated: %+v then %+v", edges[i-1], e)
		}
	}
	return refLines(r, edges)
}

// depLines renders file edges as "a.py -> b.py".
func depLines(r *Repo, edges []FileEdge) []string {
	out := []string{}
	for _, e := range edges {
		out = append(out, r.Files[e.From].Path+" -> "+r.Files[e.To].Path)
	}
	return out
}

// refLines renders symbol edges as "a.py:Foo.run -call-> b.py:helper".
func refLines(r *Repo, edges []SymbolEdge) []string {
	out := []string{}
	for _, e := range edges {
		out = append(out, symLabel(r, e.FromFile, e.FromSymbol)+" -"+e.Kind+"-> "+symLabel(r, e.ToFile, e.ToSymbol))
	}
	return out
}

// symLabel names a symbol by its file and qualified name: parents joined
// with dots, a Go method by its receiver type.
func symLabel(r *Repo, fi, si int) string {
	f := &r.Files[fi]
	var parts []string
	for cur, n := si, 0; cur >= 0 && n <= len(f.Symbols); n++ {
		s := f.Symbols[cur]
		parts = append(parts, s.Name)
		if s.Receiver != "" {
			parts = append(parts, s.Receiver)
			break
		}
		cur = parentOf(f, cur)
	}
	slices.Reverse(parts)
	return f.Path + ":" + strings.Join(parts, ".")
}

// eqLines compares edge lines as sets (edges are sorted by index, which
// checkSorted asserts; the lines are listed for reading).
func eqLines(t testing.TB, what string, got, want []string) {
	t.Helper()
	got, want = slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
	if len(got) == 0 && len(want) == 0 || reflect.DeepEqual(got, want) {
		return
	}
	var b strings.Builder
	for _, l := range want {
		if !slices.Contains(got, l) {
			b.WriteString("\n  missing: " + l)
		}
	}
	for _, l := range got {
		if !slices.Contains(want, l) {
			b.WriteString("\n  unexpected: " + l)
		}
	}
	if b.Len() == 0 {
		b.WriteString("\n  same lines, different order or duplicates:\n  got  " + strings.Join(got, "\n       "))
	}
	t.Errorf("%s:%s", what, b.String())
}
