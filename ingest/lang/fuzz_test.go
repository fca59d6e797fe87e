package lang

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// fuzzExtract checks that an extractor never panics (Extract turns a panic
// into errInternal, which fails here), returns valid UTF-8 and consistent
// indexes, whatever the input.
func fuzzExtract(f *testing.F, language string, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	ext := map[string]string{Python: "store.py", TypeScript: "widget.ts", TSX: "view.tsx", JavaScript: "app.jsx", Go: "store.go"}
	if src, err := os.ReadFile(filepath.Join("testdata", ext[language])); err == nil {
		f.Add(src)
	}
	e, err := New(language)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(e.Close)
	f.Fuzz(func(t *testing.T, src []byte) {
		facts, err := e.Extract("fuzz", src)
		if err != nil {
			if errors.Is(err, errInternal) {
				t.Fatal(err)
			}
			return
		}
		allValid(t, facts)
		n := len(facts.Symbols)
		for i, s := range facts.Symbols {
			if s.Parent < -1 || s.Parent >= n || s.Parent == i || s.StartLine < 1 || s.EndLine < s.StartLine {
				t.Fatalf("bad symbol %d: %+v", i, s)
			}
		}
		for _, d := range facts.Docstrings {
			if d.Symbol < -1 || d.Symbol >= n {
				t.Fatalf("bad docstring symbol %d", d.Symbol)
			}
		}
		for _, c := range facts.Comments {
			if c.Symbol < -1 || c.Symbol >= n || c.Line < 1 {
				t.Fatalf("bad comment %+v", c)
			}
		}
		for _, r := range facts.References {
			if r.Symbol < -1 || r.Symbol >= n || r.Line < 1 {
				t.Fatalf("bad reference %+v", r)
			}
		}
	})
}

func FuzzExtractPython(f *testing.F) {
	fuzzExtract(f, Python,
		"",
		"def f(:\n",
		"class A(B, metaclass=M):\n    '''doc\n    Args:\n        x: y\n    '''\n    def m(self): self.a[0] += 1\n",
		"from ...... import (\n",
		"raise\nraise X from\nglobal\n@\n",
		"x = '\xff\xfe' # \xc3\n",
		"\"\"\"\n:param\n:raises:\n\"\"\"\n",
	)
}

func FuzzExtractJavaScript(f *testing.F) {
	fuzzExtract(f, JavaScript,
		"",
		"function (",
		"class A extends { m() { this.x = require(); } }",
		"/** @param {{ */ export default class {}",
		"const {a: {b}} = require(`x${y}`); import(",
		"<A.B><C/></",
		"throw new",
	)
}

func FuzzExtractTypeScript(f *testing.F) {
	fuzzExtract(f, TypeScript,
		"",
		"interface I extends { m<T>(x: T): Q<T> }",
		"export type { } from;",
		"abstract class A<T> implements B<C>, { abstract m(): void }",
		"import x = require(",
		"enum E { A = 'x\xff' }",
	)
}

func FuzzExtractGo(f *testing.F) {
	fuzzExtract(f, Go,
		"",
		"package",
		"package p\nfunc (r *T[K]) M() { r.x[0]++; return ErrX }\n",
		"package p\nimport (\n\"a\n)\n",
		"package p\ntype I interface { ~int | ; M( }\n",
		"package p\nvar (\n",
		"// doc \xff\npackage p\nfunc f() { panic(fmt.Sprintf(`x`)) }\n",
	)
}

func FuzzExtractTSX(f *testing.F) {
	fuzzExtract(f, TSX,
		"",
		"const A = () => <B c={<D/>}>{x}</",
		"function F<T,>(p: T) { return <T.X />; }",
	)
}
