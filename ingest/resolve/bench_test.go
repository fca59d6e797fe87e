package resolve

import (
	"fmt"
	"testing"

	"github.com/cra-dev/cra/ingest/lang"
)

// genRepo builds a synthetic repository of nPy Python files (packages of 50
// modules), nGo Go files (packages of 20 files) and nTS TypeScript files,
// each with about 50 references: local, imported, module-qualified,
// self/receiver calls, inherited methods and unresolvable names.
func genRepo(nPy, nGo, nTS int) *Repo {
	r := &Repo{GoModules: map[string]string{"": "example.com/bench"}}
	fn := func(kind, name string, parent int) lang.Symbol {
		return lang.Symbol{Name: name, Kind: kind, Parent: parent}
	}
	for p := 0; p*50 < nPy; p++ {
		r.Files = append(r.Files, File{Path: fmt.Sprintf("src/pkg%d/__init__.py", p), Language: lang.Python,
			Imports: []lang.Import{{Kind: lang.ImportFrom, Module: "mod0", Level: 1, Names: []lang.ImportName{{Name: "*"}}}}})
	}
	for i := 0; i < nPy; i++ {
		pkg, mod := i/50, i%50
		other := fmt.Sprintf("pkg%d.mod%d", (pkg+1)%((nPy+49)/50), (mod+7)%50)
		f := File{Path: fmt.Sprintf("src/pkg%d/mod%d.py", pkg, mod), Language: lang.Python,
			Imports: []lang.Import{
				{Kind: lang.ImportPlain, Module: "os"},
				{Kind: lang.ImportPlain, Module: other, Alias: "o"},
				{Kind: lang.ImportFrom, Module: other, Names: []lang.ImportName{{Name: "f1"}, {Name: "f2", Alias: "g2"}, {Name: "Base"}}},
				{Kind: lang.ImportFrom, Level: 1, Names: []lang.ImportName{{Name: fmt.Sprintf("mod%d", (mod+1)%50)}}},
				{Kind: lang.ImportFrom, Module: "requests", Names: []lang.ImportName{{Name: "get"}}},
			}}
		for k := 0; k < 10; k++ {
			f.Symbols = append(f.Symbols, fn(lang.KindFunction, fmt.Sprintf("f%d", k), -1))
		}
		f.Symbols = append(f.Symbols, fn(lang.KindClass, "Base", -1))
		base := len(f.Symbols) - 1
		for k := 0; k < 4; k++ {
			f.Symbols = append(f.Symbols, fn(lang.KindMethod, fmt.Sprintf("m%d", k), base))
		}
		f.Symbols = append(f.Symbols, fn(lang.KindClass, "Child", -1))
		child := len(f.Symbols) - 1
		for k := 0; k < 4; k++ {
			f.Symbols = append(f.Symbols, fn(lang.KindMethod, fmt.Sprintf("c%d", k), child))
		}
		f.References = append(f.References, lang.Reference{Symbol: child, Kind: lang.RefInherit, Name: "o.Base"})
		next := fmt.Sprintf("mod%d", (mod+1)%50)
		names := []string{"f1", "f3", "g2", "o.f4", "o.Base.m1", "self.m2", "self.c1", "os.path.join", "get", "print",
			"Base", next + ".f5", "super().m0", "x.y.z", ".strip", "len", "self.c3", "f9", "o.missing", "Child.c2"}
		for k := 0; k < 50; k++ {
			caller := child + 1 + k%4
			if k%3 == 0 {
				caller = k % 10
			}
			f.References = append(f.References, lang.Reference{Symbol: caller, Kind: lang.RefCall, Name: names[k%len(names)]})
		}
		r.Files = append(r.Files, f)
	}
	nPkgs := (nGo + 19) / 20
	for i := 0; i < nGo; i++ {
		pkg, file := i/20, i%20
		f := File{Path: fmt.Sprintf("internal/p%d/f%d.go", pkg, file), Language: lang.Go,
			Imports: []lang.Import{
				{Kind: lang.ImportPlain, Module: "fmt"},
				{Kind: lang.ImportPlain, Module: fmt.Sprintf("example.com/bench/internal/p%d", (pkg+1)%nPkgs)},
				{Kind: lang.ImportPlain, Module: fmt.Sprintf("example.com/bench/internal/p%d", (pkg+2)%nPkgs), Alias: "two"},
			}}
		typ := fmt.Sprintf("T%d", file)
		f.Symbols = append(f.Symbols, lang.Symbol{Name: typ, Kind: lang.KindClass, Parent: -1})
		for k := 0; k < 5; k++ {
			f.Symbols = append(f.Symbols, lang.Symbol{Name: fmt.Sprintf("M%d", k), Kind: lang.KindMethod, Parent: 0, Receiver: typ,
				Signature: fmt.Sprintf("func (t *%s) M%d() {", typ, k)})
		}
		for k := 0; k < 10; k++ {
			f.Symbols = append(f.Symbols, lang.Symbol{Name: fmt.Sprintf("F%d_%d", file, k), Kind: lang.KindFunction, Parent: -1})
		}
		names := []string{fmt.Sprintf("F%d_1", (file+1)%20), "t.M2", "t.M9", "fmt.Println", fmt.Sprintf("p%d.F3_4", (pkg+1)%nPkgs),
			"two.F5_5", "two.T5.M1", "T3", "err.Error", ".Close", "make", fmt.Sprintf("F%d_7", file)}
		for k := 0; k < 50; k++ {
			f.References = append(f.References, lang.Reference{Symbol: 1 + k%15, Kind: lang.RefCall, Name: names[k%len(names)]})
		}
		r.Files = append(r.Files, f)
	}
	for i := 0; i < nTS; i++ {
		dir, n := i/40, i%40
		f := File{Path: fmt.Sprintf("web/d%d/m%d.ts", dir, n), Language: lang.TypeScript,
			Imports: []lang.Import{
				{Kind: lang.ImportPlain, Module: fmt.Sprintf("./m%d", (n+1)%40), Names: []lang.ImportName{{Name: "a1"}, {Name: "a2", Alias: "b2"}}},
				{Kind: lang.ImportPlain, Module: fmt.Sprintf("../d%d/m%d.js", (dir+1)%((nTS+39)/40), n), Names: []lang.ImportName{{Name: "*", Alias: "ns"}}},
				{Kind: lang.ImportPlain, Module: "react", Names: []lang.ImportName{{Name: "default", Alias: "React"}}},
			}}
		for k := 0; k < 10; k++ {
			f.Symbols = append(f.Symbols, lang.Symbol{Name: fmt.Sprintf("a%d", k), Kind: lang.KindFunction, Parent: -1})
		}
		f.Symbols = append(f.Symbols, lang.Symbol{Name: "C", Kind: lang.KindClass, Parent: -1})
		for k := 0; k < 5; k++ {
			f.Symbols = append(f.Symbols, lang.Symbol{Name: fmt.Sprintf("m%d", k), Kind: lang.KindMethod, Parent: 10})
		}
		names := []string{"a1", "b2", "ns.a3", "ns.C.m1", "this.m2", "React.createElement", "a9", "console.log", "ns.zz", "C"}
		for k := 0; k < 50; k++ {
			f.References = append(f.References, lang.Reference{Symbol: k % 16, Kind: lang.RefCall, Name: names[k%len(names)]})
		}
		r.Files = append(r.Files, f)
	}
	return r
}

func BenchmarkResolve(b *testing.B) {
	for _, size := range []struct {
		name         string
		py, gof, tsf int
	}{
		{"py2000_go2000", 2000, 2000, 0},
		{"files10000", 4000, 4000, 2000},
	} {
		r := genRepo(size.py, size.gof, size.tsf)
		refs := 0
		for _, f := range r.Files {
			refs += len(f.References)
		}
		b.Run(size.name, func(b *testing.B) {
			var deps, edges int
			for b.Loop() {
				deps = len(Dependencies(r))
				edges = len(References(r))
			}
			b.ReportMetric(float64(len(r.Files)), "files")
			b.ReportMetric(float64(refs), "refs")
			b.ReportMetric(float64(deps), "file_edges")
			b.ReportMetric(float64(edges), "symbol_edges")
		})
	}
}
