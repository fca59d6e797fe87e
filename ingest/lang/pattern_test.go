package lang

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
)

// equivalenceSources are the inputs the Go matcher and the flattened tree
// are checked on against tree-sitter itself: the testdata files, the
// benchmark sources and the fuzz seeds, whole and cut (cut files exercise
// error recovery). LANG_CORPUS may name a file listing more source paths,
// one per line, for a longer local run.
func equivalenceSources(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{
		Python: {string(genPython(200)), "def f(:\n", "raise\nraise X from\nglobal\n@\n", "from ...... import (\n",
			"class A(B, metaclass=M):\n    def m(self): self.a[0] += 1\n"},
		Go: {string(genGo(200)), "package p\nfunc (r *T[K]) M() { r.x[0]++; return ErrX }\n",
			"package p\nimport (\n\"a\n)\n", "package p\ntype I interface { ~int | ; M( }\n", "package p\nvar (\n"},
		TypeScript: {string(genTS(200, true)), "interface I extends { m<T>(x: T): Q<T> }", "export type { } from;",
			"abstract class A<T> implements B<C>, { abstract m(): void }", "import x = require("},
		JavaScript: {string(genTS(200, false)), "class A extends { m() { this.x = require(); } }",
			"const {a: {b}} = require(`x${y}`); import(", "<A.B><C/></", "exports.f = function () {}; delete a.b"},
		TSX: {"const A = () => <B c={<D/>}>{x}</", "function F<T,>(p: T) { return <T.X />; }"},
	}
	var paths []string
	for _, name := range []string{"store.py", "store.go", "widget.ts", "view.tsx", "app.jsx"} {
		paths = append(paths, filepath.Join("testdata", name))
	}
	if list := os.Getenv("LANG_CORPUS"); list != "" {
		f, err := os.Open(list)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for sc := bufio.NewScanner(f); sc.Scan(); {
			paths = append(paths, sc.Text())
		}
	}
	for _, p := range paths {
		l := LanguageOf(p)
		if !Supported(l) {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Logf("skipped: %v", err) // listed paths may be anything
			continue
		}
		out[l] = append(out[l], string(src))
	}
	for l, srcs := range out {
		for _, s := range srcs {
			out[l] = append(out[l], s[:len(s)/2], s[len(s)/3:])
		}
	}
	return out
}

// patternsOf returns an extractor's engine and its patterns in order.
func patternsOf(t *testing.T, language string) (*engine, []string) {
	t.Helper()
	e, err := New(language)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	switch x := e.(type) {
	case *PythonExtractor:
		return x.e, append(append([]string(nil), pyDefs...), pyFacts...)
	case *GoExtractor:
		defs, _ := join(goDefs)
		facts, _ := join(goFacts)
		return x.e, append(defs, facts...)
	case *JSExtractor:
		var defs, facts [][]tagged
		switch language {
		case JavaScript:
			defs, facts = [][]tagged{jsDefsCommon, jsDefsJS}, [][]tagged{jsFactsCommon, jsFactsJSX}
		case TypeScript:
			defs, facts = [][]tagged{jsDefsCommon, jsDefsTS}, [][]tagged{jsFactsCommon}
		default:
			defs, facts = [][]tagged{jsDefsCommon, jsDefsTS}, [][]tagged{jsFactsCommon, jsFactsJSX}
		}
		d, _ := join(defs...)
		f, _ := join(facts...)
		return x.e, append(d, f...)
	}
	t.Fatalf("no engine for %s", language)
	return nil, nil
}

// TestPatternsMatchLikeTreeSitter runs the extractors' patterns both
// through tree-sitter's query engine and through the Go matcher, and wants
// the same matches, captures and order.
func TestPatternsMatchLikeTreeSitter(t *testing.T) {
	for language, srcs := range equivalenceSources(t) {
		e, patterns := patternsOf(t, language)
		q, err := sitter.NewQuery([]byte(strings.Join(patterns, "\n")), e.g.lang)
		if err != nil {
			t.Fatal(err)
		}
		cursor := sitter.NewQueryCursor()
		for i, src := range srcs {
			tree := sitterTree(t, e.g, src)
			var want []string
			cursor.Exec(q, tree.RootNode())
			for {
				m, ok := cursor.NextMatch()
				if !ok {
					break
				}
				var caps []string
				for _, c := range m.Captures {
					caps = append(caps, fmt.Sprintf("%s=%s@%d-%d", q.CaptureNameForId(c.Index), c.Node.Type(), c.Node.StartByte(), c.Node.EndByte()))
				}
				sort.Strings(caps)
				want = append(want, fmt.Sprint(m.PatternIndex, caps))
			}
			tree.Close()
			if _, err := e.parse("x", []byte(src), nil); err != nil {
				t.Fatal(err)
			}
			var got []string
			for j := range e.tree.nodes {
				for _, m := range e.pats.matchesAt(&e.tree.nodes[j], nil) {
					var caps []string
					for _, c := range m.caps[:m.n] {
						caps = append(caps, fmt.Sprintf("%s=%s@%d-%d", c.name, c.node.typ, c.node.start, c.node.end))
					}
					sort.Strings(caps)
					got = append(got, fmt.Sprint(m.idx, caps))
				}
			}
			e.tree.close()
			if d := firstDiff(got, want); d != "" {
				t.Errorf("%s source %d: %s", language, i, d)
			}
		}
		cursor.Close()
		q.Close()
	}
}

// sitterTree parses src with go-tree-sitter's own parser: the reference
// the flattened tree and the Go matcher are checked against.
func sitterTree(t *testing.T, g *grammar, src string) *sitter.Tree {
	t.Helper()
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(g.lang)
	tree, err := p.ParseCtx(context.Background(), nil, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// firstDiff describes where two sequences first differ, or returns "".
func firstDiff(got, want []string) string {
	for i := 0; i < len(got) || i < len(want); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return fmt.Sprintf("item %d of %d/%d: got %q, want %q", i, len(got), len(want), g, w)
		}
	}
	return ""
}

func TestParsePatternRejectsUnsupported(t *testing.T) {
	for _, src := range []string{
		`(a (b (c)) (d))`,                        // two subtrees
		`(a f: (b (c)))`,                         // a leaf with children
		`(a`,                                     // unclosed
		`(a) @`,                                  // empty capture
		`((a) (b))`,                              // sibling sequence
		`(a (b) @x (c) @y (d) @z (e) @w (f) @v)`, // too many captures
	} {
		if _, err := parsePattern(src); err == nil {
			t.Errorf("parsePattern(%q) accepted an unsupported pattern", src)
		}
	}
}
