package resolve

import (
	"testing"

	"github.com/cra-dev/cra/ingest/lang"
)

// ruleCase is a small repository of sources and the exact edges it gives.
type ruleCase struct {
	name  string
	files map[string]string
	deps  []string
	refs  []string
}

func runRules(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := repoOf(t, c.files)
			eqLines(t, "dependencies", dependencies(t, r), c.deps)
			eqLines(t, "references", references(t, r), c.refs)
		})
	}
}

func TestPythonRules(t *testing.T) {
	runRules(t, []ruleCase{
		{
			name: "import a.b.c from the repository root",
			files: map[string]string{
				"app.py":          "import pkg.mod\n\ndef run():\n    pkg.mod.f()\n",
				"pkg/__init__.py": "",
				"pkg/mod.py":      "def f():\n    pass\n",
			},
			deps: []string{"app.py -> pkg/mod.py"},
			refs: []string{"app.py:run -call-> pkg/mod.py:f"},
		},
		{
			name: "package directory as module: import pkg.sub gives pkg/sub/__init__.py",
			files: map[string]string{
				"app.py":              "import pkg.sub as s\n\ndef run():\n    s.g()\n",
				"pkg/__init__.py":     "",
				"pkg/sub/__init__.py": "def g():\n    pass\n",
			},
			deps: []string{"app.py -> pkg/sub/__init__.py"},
			refs: []string{"app.py:run -call-> pkg/sub/__init__.py:g"},
		},
		{
			name: "from package import a submodule and a name",
			files: map[string]string{
				"app.py":          "from pkg import sub, NAME\n\ndef run():\n    sub.f()\n",
				"pkg/__init__.py": "NAME = 1\n",
				"pkg/sub.py":      "def f():\n    pass\n",
			},
			deps: []string{"app.py -> pkg/__init__.py", "app.py -> pkg/sub.py"},
			refs: []string{"app.py:run -call-> pkg/sub.py:f"},
		},
		{
			name: "relative import two levels up",
			files: map[string]string{
				"pkg/__init__.py":     "",
				"pkg/x.py":            "def f():\n    pass\n",
				"pkg/sub/__init__.py": "",
				"pkg/sub/m.py":        "from ..x import f\n\ndef g():\n    f()\n",
			},
			deps: []string{"pkg/sub/m.py -> pkg/x.py"},
			refs: []string{"pkg/sub/m.py:g -call-> pkg/x.py:f"},
		},
		{
			name: "from . import name defined in the package's __init__",
			files: map[string]string{
				"pkg/__init__.py": "def top():\n    pass\n",
				"pkg/m.py":        "from . import top\n\ndef g():\n    top()\n",
			},
			deps: []string{"pkg/m.py -> pkg/__init__.py"},
			refs: []string{"pkg/m.py:g -call-> pkg/__init__.py:top"},
		},
		{
			name: "third-party and standard library imports give nothing",
			files: map[string]string{
				"app.py": "import os\nimport requests\nfrom numpy import array\n\ndef run():\n    requests.get()\n    array()\n    os.path.join()\n",
			},
		},
		{
			name: "self-import gives no edge",
			files: map[string]string{
				"pkg/__init__.py": "from . import helper\n\ndef helper():\n    pass\n",
				"pkg/m.py":        "from . import m\nfrom pkg.m import f\n\ndef f():\n    pass\n",
			},
		},
		{
			name: "a local definition shadows an imported name",
			files: map[string]string{
				"a.py": "from b import helper\n\ndef helper():\n    pass\n\ndef run():\n    helper()\n",
				"b.py": "def helper():\n    pass\n",
			},
			deps: []string{"a.py -> b.py"},
			refs: []string{"a.py:run -call-> a.py:helper"},
		},
		{
			name: "Class.method of a class in scope, and a class call",
			files: map[string]string{
				"a.py": "class A:\n    def m(self):\n        pass\n\ndef f():\n    A.m(None)\n    A()\n",
			},
			refs: []string{"a.py:f -call-> a.py:A", "a.py:f -call-> a.py:A.m"},
		},
		{
			name: "module-level code gives no edges",
			files: map[string]string{
				"a.py": "from b import g\n\ndef f():\n    pass\n\nf()\ng()\n",
				"b.py": "def g():\n    pass\n",
			},
			deps: []string{"a.py -> b.py"},
		},
		{
			name: "re-export through __init__ star import",
			files: map[string]string{
				"pkg/__init__.py": "from .impl import *\n",
				"pkg/impl.py":     "def f():\n    pass\n",
				"b.py":            "from pkg import f\n\ndef g():\n    f()\n",
			},
			deps: []string{"b.py -> pkg/__init__.py", "pkg/__init__.py -> pkg/impl.py"},
			refs: []string{"b.py:g -call-> pkg/impl.py:f"},
		},
		{
			name: "base class through a module attribute, method found on the base",
			files: map[string]string{
				"models.py": "class A:\n    def m(self):\n        pass\n",
				"b.py":      "import models\n\nclass B(models.A):\n    def x(self):\n        self.m()\n        self.nope()\n",
			},
			deps: []string{"b.py -> models.py"},
			refs: []string{"b.py:B -inherit-> models.py:A", "b.py:B.x -call-> models.py:A.m"},
		},
		{
			name: "a .py module wins over its .pyi stub",
			files: map[string]string{
				"a.py":  "from m import f\n\ndef g():\n    f()\n",
				"m.py":  "def f():\n    pass\n",
				"m.pyi": "def f() -> None: ...\n",
			},
			deps: []string{"a.py -> m.py"},
			refs: []string{"a.py:g -call-> m.py:f"},
		},
		{
			name: "a regular package under src/ wins over a namespace directory at the root",
			files: map[string]string{
				"shop/README.md":       "docs",
				"src/shop/__init__.py": "def f():\n    pass\n",
				"app.py":               "from shop import f\n\ndef g():\n    f()\n",
			},
			deps: []string{"app.py -> src/shop/__init__.py"},
			refs: []string{"app.py:g -call-> src/shop/__init__.py:f"},
		},
		{
			name: "several projects: a package name means the importer's own project",
			files: map[string]string{
				"services/a/app/__init__.py": "",
				"services/a/app/models.py":   "class M:\n    pass\n",
				"services/b/app/__init__.py": "",
				"services/b/app/models.py":   "class M:\n    pass\n",
				"services/b/app/views.py":    "from app.models import M\n\ndef v() -> M:\n    pass\n",
			},
			deps: []string{"services/b/app/views.py -> services/b/app/models.py"},
			refs: []string{"services/b/app/views.py:v -type_ref-> services/b/app/models.py:M"},
		},
		{
			name: "the last definition of a redefined name",
			files: map[string]string{
				"a.py": "def f():\n    pass\n\ndef f():\n    pass\n\nf = wrap(f)\n\ndef g():\n    f()\n",
			},
			refs: []string{"a.py:g -call-> a.py:f"}, // the second def (line 4)
		},
		{
			name: "an inner function is not visible from a sibling method",
			files: map[string]string{
				"a.py": "class C:\n    def m(self):\n        def inner():\n            pass\n        inner()\n\n    def n(self):\n        inner()\n        m()\n",
			},
			refs: []string{"a.py:C.m -call-> a.py:C.m.inner"},
		},
	})

	// Which f of the redefinition: the last def, not the first nor the variable.
	r := repoOf(t, map[string]string{"a.py": "def f():\n    pass\n\ndef f():\n    pass\n\nf = wrap(f)\n\ndef g():\n    f()\n"})
	e := References(r)
	if len(e) != 1 || r.Files[0].Symbols[e[0].ToSymbol].StartLine != 4 {
		t.Errorf("want the def on line 4, got %+v", e)
	}
}

func TestJavaScriptRules(t *testing.T) {
	runRules(t, []ruleCase{
		{
			name: "TypeScript source before compiled JavaScript",
			files: map[string]string{
				"a.ts": "import { f } from './x';\nexport function g() { f(); }\n",
				"x.js": "export function f() {}\n",
				"x.ts": "export function f() {}\n",
			},
			deps: []string{"a.ts -> x.ts"},
			refs: []string{"a.ts:g -call-> x.ts:f"},
		},
		{
			name: "a .js specifier stands for a .tsx source",
			files: map[string]string{
				"a.ts":       "import { Btn } from './ui/btn.js';\nexport function g() { return Btn(); }\n",
				"ui/btn.tsx": "export function Btn() { return <b/>; }\n",
			},
			deps: []string{"a.ts -> ui/btn.tsx"},
			refs: []string{"a.ts:g -call-> ui/btn.tsx:Btn"},
		},
		{
			name: "directory index, and parent directory",
			files: map[string]string{
				"lib/index.js": "export function f() {}\n",
				"app/main.js":  "import { f } from '../lib';\nfunction g() { f(); }\n",
			},
			deps: []string{"app/main.js -> lib/index.js"},
			refs: []string{"app/main.js:g -call-> lib/index.js:f"},
		},
		{
			name: "bare specifiers and paths outside the repository give nothing",
			files: map[string]string{
				"a.js": "import React from 'react';\nimport { x } from '../../outside';\nimport fs from 'node:fs';\nfunction g() { React.render(); x(); fs.readFileSync(); }\n",
			},
		},
		{
			name: "named, aliased and namespace imports",
			files: map[string]string{
				"m.ts": "export function one() {}\nexport function two() {}\nexport class K { static make() {} }\n",
				"a.ts": "import { one, two as deux } from './m';\nimport * as m from './m';\nexport function g() { one(); deux(); m.two(); m.K.make(); two(); }\n",
			},
			deps: []string{"a.ts -> m.ts"},
			refs: []string{
				"a.ts:g -call-> m.ts:K.make",
				"a.ts:g -call-> m.ts:one",
				"a.ts:g -call-> m.ts:two", // deux and m.two; the bare two() is not bound
			},
		},
		{
			name: "CommonJS require of a module and of names",
			files: map[string]string{
				"lib/util.js": "exports.fmt = function () {};\nfunction inner() {}\n",
				"main.js":     "const util = require('./lib/util');\nconst { fmt: f } = require('./lib/util.js');\nfunction g() { util.fmt(); f(); util.missing(); }\n",
			},
			deps: []string{"main.js -> lib/util.js"},
			refs: []string{"main.js:g -call-> lib/util.js:fmt"},
		},
		{
			name: "export * as ns re-export",
			files: map[string]string{
				"impl.ts":  "export function f() {}\n",
				"index.ts": "export * as ns from './impl';\n",
				"a.ts":     "import { ns } from './index';\nexport function g() { ns.f(); }\n",
			},
			deps: []string{"a.ts -> index.ts", "index.ts -> impl.ts"},
			refs: []string{"a.ts:g -call-> impl.ts:f"},
		},
		{
			name: "this.m and a nested function",
			files: map[string]string{
				"a.js": "function helper() {}\nclass C {\n  m() { const helper = () => 1; helper(); this.n(); this.x.y(); }\n  n() { helper(); }\n}\n",
			},
			refs: []string{
				"a.js:C.m -call-> a.js:C.m.helper", // the nested arrow function shadows
				"a.js:C.m -call-> a.js:C.n",
				"a.js:C.n -call-> a.js:helper",
			},
		},
		{
			name: "a default import binds nothing",
			files: map[string]string{
				"d.ts": "export default function main() {}\n",
				"a.ts": "import main from './d';\nexport function g() { main(); }\n",
			},
			deps: []string{"a.ts -> d.ts"},
		},
	})
}

func TestGoRules(t *testing.T) {
	mod := "module example.com/m\n"
	runRules(t, []ruleCase{
		{
			name: "same package across files, and a type declared elsewhere",
			files: map[string]string{
				"go.mod": mod,
				"p/a.go": "package p\n\nfunc A() { b() }\n\nfunc (t *T) M() { t.N() }\n",
				"p/b.go": "package p\n\ntype T struct{}\n\nfunc b() {}\n\nfunc (t *T) N() {}\n",
			},
			refs: []string{"p/a.go:A -call-> p/b.go:b", "p/a.go:T.M -call-> p/b.go:T.N"},
		},
		{
			name: "pkg.Func by alias and by default name; standard library gives nothing",
			files: map[string]string{
				"go.mod":         mod,
				"util/util.go":   "package util\n\nfunc Do() {}\n",
				"util/extra.go":  "package util\n\nfunc More() {}\n",
				"util/u_test.go": "package util\n\nfunc helperT() {}\n",
				"cmd/main.go":    "package main\n\nimport (\n\t\"fmt\"\n\tu \"example.com/m/util\"\n)\n\nfunc main() { u.Do(); fmt.Println() }\n",
				"cmd/other.go":   "package main\n\nimport \"example.com/m/util\"\n\nfunc other() { util.More(); util.helperT() }\n",
			},
			deps: []string{
				"cmd/main.go -> util/extra.go", "cmd/main.go -> util/util.go",
				"cmd/other.go -> util/extra.go", "cmd/other.go -> util/util.go",
			},
			refs: []string{"cmd/main.go:main -call-> util/util.go:Do", "cmd/other.go:other -call-> util/extra.go:More"},
		},
		{
			name: "receiver method call; other variables and unnamed receivers are not the receiver",
			files: map[string]string{
				"go.mod": mod,
				"s.go":   "package m\n\ntype S struct{}\n\nfunc (s *S) A() {\n\ts.B()\n\tv := &S{}\n\tv.B()\n}\n\nfunc (s *S) B() {}\n\nfunc (S) C(s *S) { s.B() }\n",
			},
			refs: []string{"s.go:S.A -call-> s.go:S.B", "s.go:S.C -type_ref-> s.go:S"},
		},
		{
			name: "method expression T.M and a type reference",
			files: map[string]string{
				"go.mod": mod,
				"t.go":   "package m\n\ntype T struct{}\n\nfunc (T) M() {}\n\nfunc use(t T) { T.M(t) }\n",
			},
			refs: []string{"t.go:use -call-> t.go:T.M", "t.go:use -type_ref-> t.go:T"},
		},
		{
			name: "a recursive call is a self-edge; a var initialiser belongs to the var",
			files: map[string]string{
				"go.mod": mod,
				"r.go":   "package m\n\nvar x = f(1)\n\nfunc f(n int) int { return f(n - 1) }\n",
			},
			refs: []string{"r.go:f -call-> r.go:f", "r.go:x -call-> r.go:f"},
		},
		{
			name: "no go.mod: imports cannot be resolved",
			files: map[string]string{
				"a/a.go": "package a\n\nimport \"example.com/m/b\"\n\nfunc A() { b.B() }\n",
				"b/b.go": "package b\n\nfunc B() {}\n",
			},
		},
		{
			name: "an external test package imports its own directory",
			files: map[string]string{
				"go.mod":      mod,
				"p/p.go":      "package p\n\nfunc F() {}\n",
				"p/p_test.go": "package p_test\n\nimport \"example.com/m/p\"\n\nfunc TestF() { p.F() }\n",
			},
			deps: []string{"p/p_test.go -> p/p.go"},
			refs: []string{"p/p_test.go:TestF -call-> p/p.go:F"},
		},
	})
}

func TestGoReceiverWithoutSignature(t *testing.T) {
	// Facts loaded without signatures: the receiver variable is unknown,
	// so x.M on any name that is no import and no package-level name is
	// taken as a receiver call (one level only).
	r := &Repo{
		GoModules: map[string]string{"": "example.com/m"},
		Files: []File{
			{Path: "p/s.go", Language: lang.Go,
				Imports: []lang.Import{{Kind: lang.ImportPlain, Module: "example.com/m/q", Alias: "b"}},
				Symbols: []lang.Symbol{
					{Name: "S", Kind: lang.KindClass, Parent: -1},
					{Name: "A", Kind: lang.KindMethod, Parent: 0, Receiver: "S"},
					{Name: "B", Kind: lang.KindMethod, Parent: 0, Receiver: "S"},
					{Name: "g", Kind: lang.KindFunction, Parent: -1},
				},
				References: []lang.Reference{
					{Symbol: 1, Kind: lang.RefCall, Name: "x.B"},   // receiver heuristic
					{Symbol: 1, Kind: lang.RefCall, Name: "b.B"},   // b is an import: no
					{Symbol: 1, Kind: lang.RefCall, Name: "x.f.B"}, // through a field: no
					{Symbol: 3, Kind: lang.RefCall, Name: "x.B"},   // not a method: no
				}},
			{Path: "q/q.go", Language: lang.Go, Symbols: []lang.Symbol{{Name: "Q", Kind: lang.KindFunction, Parent: -1}}},
		},
	}
	eqLines(t, "references", references(t, r), []string{"p/s.go:S.A -call-> p/s.go:S.B"})
}

func TestMalformedFacts(t *testing.T) {
	// Facts from a store are not trusted: bad indexes, unknown kinds and
	// languages without a resolver give no edge and no panic.
	r := &Repo{Files: []File{
		{Path: "a.py", Language: lang.Python,
			Symbols: []lang.Symbol{
				{Name: "f", Kind: lang.KindFunction, Parent: 7},
				{Name: "g", Kind: lang.KindFunction, Parent: 1}, // its own parent
			},
			References: []lang.Reference{
				{Symbol: 9, Kind: lang.RefCall, Name: "f"},
				{Symbol: 0, Kind: "weird", Name: "f"},
				{Symbol: 0, Kind: lang.RefCall, Name: ""},
				{Symbol: 0, Kind: lang.RefCall, Name: ".m"},
				{Symbol: 0, Kind: lang.RefCall, Name: "self.x"},
				{Symbol: 1, Kind: lang.RefCall, Name: "f"},
			}},
		{Path: "b.rb", Language: "ruby",
			Imports:    []lang.Import{{Kind: lang.ImportPlain, Module: "a"}},
			Symbols:    []lang.Symbol{{Name: "h", Parent: -1}},
			References: []lang.Reference{{Symbol: 0, Kind: lang.RefCall, Name: "f"}}},
	}}
	eqLines(t, "dependencies", dependencies(t, r), nil)
	eqLines(t, "references", references(t, r), []string{"a.py:g -call-> a.py:f"})
}

func TestGoModulePath(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"plain", "module example.com/m\n\ngo 1.22\n", "example.com/m"},
		{"quoted, with comments", "// the module\nmodule \"example.com/q/v2\" // v2\n", "example.com/q/v2"},
		{"unknown directives are ignored", "module example.com/m\nfuturething x\n", "example.com/m"},
		{"no module directive", "go 1.22\n", ""},
		{"empty", "", ""},
		{"garbage", "module (\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := GoModulePath([]byte(c.src)); got != c.want {
				t.Errorf("GoModulePath(%q) = %q, want %q", c.src, got, c.want)
			}
		})
	}
}

func TestConcurrentCalls(t *testing.T) {
	// Each call builds its own indexes: callers may resolve one Repo from
	// several goroutines (go test -race checks nothing is shared).
	r := loadDir(t, "testdata/go")
	want := references(t, r)
	done := make(chan []string)
	for range 4 {
		go func() { Dependencies(r); done <- refLines(r, References(r)) }()
	}
	for range 4 {
		eqLines(t, "concurrent references", <-done, want)
	}
}
