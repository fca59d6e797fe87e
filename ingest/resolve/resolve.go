package resolve

import (
	"cmp"
	"slices"
	"strings"

	"github.com/cra-dev/cra/ingest/lang"
)

// File is one file's facts as the resolver needs them.
type File struct {
	Path       string // slash-separated, relative to the repository root
	Language   string // lang.Python, lang.JavaScript, lang.TypeScript, lang.TSX, lang.Go; others get no edges
	Imports    []lang.Import
	Symbols    []lang.Symbol // Name, Kind, Parent, Receiver (and Signature for Go methods) are used
	References []lang.Reference
}

// Repo is a whole repository: every file, including files of languages
// without an extractor (an import may name them: `import './styles.css'`).
type Repo struct {
	Files []File
	// GoModules maps the directory of each go.mod ("" for the root) to its
	// module path.
	GoModules map[string]string
}

// KindImport is the kind of every FileEdge.
const KindImport = "import"

// FileEdge is a dependency: file From imports file To.
type FileEdge struct {
	From, To int    // indexes into Repo.Files; never From == To
	Kind     string // KindImport
}

// SymbolEdge is a reference from one symbol to another.
type SymbolEdge struct {
	FromFile, FromSymbol int    // caller: file index, symbol index in that file's Symbols
	ToFile, ToSymbol     int    // callee
	Kind                 string // lang.RefCall, lang.RefInherit, lang.RefTypeRef
}

// Dependencies resolves every file's imports to files of the repository.
// The result is deduplicated and sorted by (From, To).
func Dependencies(r *Repo) []FileEdge {
	x := newResolver(r)
	var (
		out     []FileEdge
		targets []int
	)
	for i := range r.Files {
		targets = targets[:0]
		switch family(r.Files[i].Language) {
		case famPython:
			targets = x.pyDeps(i, targets)
		case famJS:
			targets = x.jsDeps(i, targets)
		case famGo:
			targets = x.goDeps(i, targets)
		}
		slices.Sort(targets)
		targets = slices.Compact(targets)
		for _, t := range targets {
			if t != i && t >= 0 {
				out = append(out, FileEdge{From: i, To: t, Kind: KindImport})
			}
		}
	}
	return out
}

// References resolves every reference made by a symbol to the symbol it
// names. References from module-level code (Symbol == -1) and names that
// resolve to nothing in the repository produce no edge; a recursive call is
// a self-edge and is kept. The result is deduplicated and sorted by
// (FromFile, FromSymbol, ToFile, ToSymbol, Kind).
func References(r *Repo) []SymbolEdge {
	x := newResolver(r)
	n := 0
	for i := range r.Files {
		n += len(r.Files[i].References)
	}
	// Usually fewer than half of the references resolve (the others name
	// the standard library, packages, methods on values of unknown type):
	// room for half saves most of the regrowth of a large result.
	out := make([]SymbolEdge, 0, n/2)
	var edges []SymbolEdge
	for i := range r.Files {
		f := &r.Files[i]
		fam := family(f.Language)
		if fam == famNone || len(f.References) == 0 {
			continue
		}
		x.from = i
		edges = edges[:0]
		for _, ref := range f.References {
			kind := refKind(ref.Kind)
			if ref.Symbol < 0 || ref.Symbol >= len(f.Symbols) || kind == "" || ref.Name == "" {
				continue
			}
			var t target
			switch fam {
			case famPython:
				t = x.pyRef(i, ref.Symbol, ref.Name, kind)
			case famJS:
				t = x.jsRef(i, ref.Symbol, ref.Name, kind)
			case famGo:
				t = x.goRef(i, ref.Symbol, ref.Name)
			}
			edges = x.emit(edges, SymbolEdge{FromFile: i, FromSymbol: ref.Symbol, Kind: kind}, t)
		}
		slices.SortFunc(edges, compareEdges)
		out = append(out, slices.Compact(edges)...)
	}
	return out
}

func compareEdges(a, b SymbolEdge) int {
	return cmp.Or(
		cmp.Compare(a.FromFile, b.FromFile),
		cmp.Compare(a.FromSymbol, b.FromSymbol),
		cmp.Compare(a.ToFile, b.ToFile),
		cmp.Compare(a.ToSymbol, b.ToSymbol),
		cmp.Compare(a.Kind, b.Kind),
	)
}

// refKind returns the lang constant for a reference kind, "" if unknown.
// Returning the constant keeps edges from pinning the caller's strings.
func refKind(k string) string {
	switch k {
	case lang.RefCall:
		return lang.RefCall
	case lang.RefInherit:
		return lang.RefInherit
	case lang.RefTypeRef:
		return lang.RefTypeRef
	}
	return ""
}

// emit appends the edges a resolved target stands for: one symbol, or every
// definition of a Go name (build-constrained variants of one package define
// the same function in several files, and each is a possible callee).
func (x *resolver) emit(out []SymbolEdge, e SymbolEdge, t target) []SymbolEdge {
	switch t.kind {
	case tSym:
		e.ToFile, e.ToSymbol = t.file, t.sym
		out = append(out, e)
	case tGoName, tGoMethod:
		p := x.goPackage(t.dir)
		h := p.names[t.name]
		if t.kind == tGoMethod {
			h = p.methods[methodKey{t.recv, t.name}]
		}
		for ; h > 0; h = x.goList.next[h-1] {
			if s := x.goList.ids[h-1]; x.goVisible(s.file) {
				e.ToFile, e.ToSymbol = s.file, s.sym
				out = append(out, e)
			}
		}
	}
	return out
}

// Language families: JavaScript, TypeScript and TSX resolve alike.
const (
	famNone = iota
	famPython
	famJS
	famGo
)

func family(language string) int {
	switch language {
	case lang.Python:
		return famPython
	case lang.JavaScript, lang.TypeScript, lang.TSX:
		return famJS
	case lang.Go:
		return famGo
	}
	return famNone
}

// symID names one symbol of the repository.
type symID struct{ file, sym int }

// resolver holds the indexes of one Dependencies or References call. The
// per-file scopes, Python roots and Go packages are built on first use so
// that a call pays only for what it reads. Not safe for concurrent use.
type resolver struct {
	r      *Repo
	byPath map[string]int
	dirs   map[string]bool // every directory holding a file at any depth; "" is the root
	scopes []*fileScope
	binds  []*bindings
	bases  map[symID][]target // base classes / embedded types, once resolved

	pyRootsDone  bool
	pyRoots      []string
	pyRootsByDir map[string][]string

	goPkgs    map[string]*goPkg
	goList    symList
	goMods    []goModule
	goModDirs map[string]bool

	from int // the file whose references are being resolved (Go test visibility)
}

func newResolver(r *Repo) *resolver {
	x := &resolver{
		r:      r,
		byPath: make(map[string]int, len(r.Files)),
		dirs:   map[string]bool{"": true},
		scopes: make([]*fileScope, len(r.Files)),
		binds:  make([]*bindings, len(r.Files)),
		bases:  map[symID][]target{},
	}
	for i, f := range r.Files {
		if _, dup := x.byPath[f.Path]; !dup {
			x.byPath[f.Path] = i
		}
		for d := dirOf(f.Path); d != "" && !x.dirs[d]; d = dirOf(d) {
			x.dirs[d] = true
		}
	}
	return x
}

// file returns the index of the file at path p, or -1.
func (x *resolver) file(p string) int {
	if i, ok := x.byPath[p]; ok {
		return i
	}
	return -1
}

// fileScope is one file's symbols indexed by name.
type fileScope struct {
	top      map[string]int   // symbols with no parent, by name (the one pick prefers)
	kids     map[int][]int    // parent symbol → its children
	inherits map[int][]string // class → the bases it names (inherit references)
}

func (x *resolver) scope(fi int) *fileScope {
	if s := x.scopes[fi]; s != nil {
		return s
	}
	f := &x.r.Files[fi]
	s := &fileScope{top: make(map[string]int, len(f.Symbols))}
	for i := range f.Symbols {
		if p := parentOf(f, i); p >= 0 {
			if s.kids == nil {
				s.kids = map[int][]int{}
			}
			s.kids[p] = append(s.kids[p], i)
		} else {
			name := f.Symbols[i].Name
			if b, ok := s.top[name]; ok {
				s.top[name] = better(f, b, i)
			} else {
				s.top[name] = i
			}
		}
	}
	for _, ref := range f.References {
		if ref.Kind == lang.RefInherit && ref.Symbol >= 0 && ref.Symbol < len(f.Symbols) {
			if s.inherits == nil {
				s.inherits = map[int][]string{}
			}
			s.inherits[ref.Symbol] = append(s.inherits[ref.Symbol], ref.Name)
		}
	}
	x.scopes[fi] = s
	return s
}

// parentOf returns symbol i's parent, -1 when it has none or the index is
// out of range (facts loaded from elsewhere are not trusted to be valid).
func parentOf(f *File, i int) int {
	p := f.Symbols[i].Parent
	if p < 0 || p >= len(f.Symbols) || p == i {
		return -1
	}
	return p
}

// kidNamed returns the child of parent called name, or -1 (see pick).
func (x *resolver) kidNamed(fi, parent int, name string) int {
	f := &x.r.Files[fi]
	best := -1
	for _, k := range x.scope(fi).kids[parent] {
		if f.Symbols[k].Name == name {
			best = better(f, best, k)
		}
	}
	return best
}

// better chooses among same-named definitions of one scope, given the best
// so far (-1 for none) and a later one: the last function, class or type,
// else the last variable. At call time the last binding of a Python module
// (or a TS overload's implementation, which comes after its signatures) is
// the one in effect, and a `f = wrap(f)` variable after `def f` is less
// useful as a target than the definition.
func better(f *File, best, c int) int {
	if best < 0 || f.Symbols[c].Kind != lang.KindVariable || f.Symbols[best].Kind == lang.KindVariable {
		return c
	}
	return best
}

// Targets: what a name, or a dotted prefix of it, stands for.
type tkind uint8

const (
	tNone     tkind = iota
	tModule         // a Python or JS module: file (-1 for a Python namespace package); dir and pkg for a Python package
	tSym            // one symbol: file, sym
	tGoPkg          // a Go package: dir
	tGoName         // a package-level name of Go package dir, every file's definition of it
	tGoType         // a Go type by name in package dir, for method lookup
	tGoMethod       // method name of type recv in Go package dir
)

type target struct {
	kind tkind
	file int
	sym  int
	pkg  bool   // tModule: a Python package, whose submodules are attributes
	dir  string // package directory
	name string
	recv string
}

var noTarget = target{kind: tNone}

func symTarget(file, sym int) target {
	if sym < 0 {
		return noTarget
	}
	return target{kind: tSym, file: file, sym: sym}
}

// binding is what an import binds a local name to: a module, or a name
// looked up in a module.
type binding struct {
	mod  target
	name string // "" binds the module itself
}

// bindings are the names one file's imports bind.
type bindings struct {
	bind     map[string]binding // local name (Python: also a dotted `import a.b`) → what it stands for
	imported map[string]bool    // every local name an import binds, resolved or not
	exports  map[string]binding // JS `export {a as b} from`: exported name → binding
	stars    []int              // files whose names this file re-exports (Python `import *`, JS `export *`)

	goImports map[string]string // Go local package name → package directory in the repository
	goDots    []string          // Go dot-imported package directories
}

func newBindings() *bindings {
	return &bindings{bind: map[string]binding{}, imported: map[string]bool{}, exports: map[string]binding{}}
}

func (x *resolver) bindings(fi int) *bindings {
	if b := x.binds[fi]; b != nil {
		return b
	}
	var b *bindings
	switch family(x.r.Files[fi].Language) {
	case famPython:
		b = x.pyBindings(fi)
	case famJS:
		b = x.jsBindings(fi)
	case famGo:
		b = x.goBindings(fi)
	default:
		b = newBindings()
	}
	x.binds[fi] = b
	return b
}

// maxHops bounds how many re-exports a name is followed through
// (pkg/__init__.py → from .sub import * → sub/__init__.py → from .impl
// import f is two), and cycles between modules that import each other.
const maxHops = 3

// maxBaseDepth bounds inheritance chains, and cycles in them.
const maxBaseDepth = 8

// member resolves attribute name of t: a module's top-level name, a class
// member, a Go package's name or a Go type's method.
func (x *resolver) member(t target, name string, depth int) target {
	switch t.kind {
	case tModule:
		if t.file >= 0 {
			if r := x.lookupTop(t.file, name, depth); r.kind != tNone {
				return r
			}
		}
		if t.pkg {
			if sub, ok := x.pySubmodule(t.dir, name); ok {
				return sub
			}
		}
	case tSym:
		return x.classMember(t.file, t.sym, name, 0)
	case tGoPkg:
		if x.goHasName(t.dir, name) {
			return target{kind: tGoName, dir: t.dir, name: name}
		}
	case tGoName:
		if x.goIsType(t.dir, t.name) {
			return x.goMember(t.dir, t.name, name, 0)
		}
	case tGoType:
		return x.goMember(t.dir, t.name, name, 0)
	}
	return noTarget
}

// lookupTop resolves a top-level name of a Python or JS module: a symbol it
// defines, else a name it imports (a re-export: `from .impl import f` in a
// package's __init__.py, `export { f } from './impl'`). A module that
// imports a name it does not use is rare; code that asks a module for a name
// it does not define relies on exactly such a re-export.
func (x *resolver) lookupTop(fi int, name string, depth int) target {
	f := &x.r.Files[fi]
	s := x.scope(fi)
	if c, ok := s.top[name]; ok {
		// `const x = require('m')` declares a variable that is the import:
		// resolve through the import rather than stop at the variable.
		if family(f.Language) != famJS || f.Symbols[c].Kind != lang.KindVariable || !x.bindings(fi).imported[name] {
			return symTarget(fi, c)
		}
	}
	if depth >= maxHops {
		return noTarget
	}
	b := x.bindings(fi)
	if bd, ok := b.bind[name]; ok {
		if r := x.follow(bd, depth+1); r.kind != tNone {
			return r
		}
	}
	if bd, ok := b.exports[name]; ok {
		if r := x.follow(bd, depth+1); r.kind != tNone {
			return r
		}
	}
	for _, st := range b.stars {
		if r := x.lookupTop(st, name, depth+1); r.kind != tNone {
			return r
		}
	}
	return noTarget
}

func (x *resolver) follow(b binding, depth int) target {
	if b.name == "" {
		return b.mod
	}
	return x.member(b.mod, b.name, depth)
}

// walk resolves the remaining dotted parts of a name from t.
func (x *resolver) walk(t target, rest string) target {
	for rest != "" && t.kind != tNone {
		var part string
		part, rest, _ = strings.Cut(rest, ".")
		t = x.member(t, part, 0)
	}
	return t
}

// lexical resolves a bare name as seen from symbol sym of a Python or JS
// file: a child of the caller or of an enclosing function (nested
// functions), else a top-level symbol. Class bodies are not scopes for the
// functions inside them (a method cannot call a sibling method unqualified)
// except for the class's own body code.
func (x *resolver) lexical(fi, sym int, name, kind string) int {
	f := &x.r.Files[fi]
	for cur, n := sym, 0; cur >= 0 && n <= len(f.Symbols); cur, n = parentOf(f, cur), n+1 {
		switch f.Symbols[cur].Kind {
		case lang.KindFunction, lang.KindMethod:
		case lang.KindClass:
			if cur != sym || kind == lang.RefInherit {
				continue
			}
		default:
			continue
		}
		if k := x.kidNamed(fi, cur, name); k >= 0 {
			return k
		}
	}
	if c, ok := x.scope(fi).top[name]; ok {
		return c
	}
	return -1
}

// enclosingClass returns the class a method (or a function nested in one)
// belongs to, or -1.
func (x *resolver) enclosingClass(fi, sym int) int {
	f := &x.r.Files[fi]
	for cur, n := parentOf(f, sym), 0; cur >= 0 && n <= len(f.Symbols); cur, n = parentOf(f, cur), n+1 {
		if f.Symbols[cur].Kind == lang.KindClass {
			return cur
		}
	}
	return -1
}

// classMember finds member name of a Python or JS class: its own, else the
// first found in its base classes (in declaration order, depth first, as
// Python's MRO does for single inheritance).
func (x *resolver) classMember(fi, class int, name string, depth int) target {
	f := &x.r.Files[fi]
	switch f.Symbols[class].Kind {
	case lang.KindClass, lang.KindInterface:
	default:
		return noTarget
	}
	if k := x.kidNamed(fi, class, name); k >= 0 {
		return symTarget(fi, k)
	}
	if depth >= maxBaseDepth {
		return noTarget
	}
	for _, b := range x.classBases(fi, class) {
		if r := x.classMember(b.file, b.sym, name, depth+1); r.kind != tNone {
			return r
		}
	}
	return noTarget
}

// classBases resolves the bases a Python or JS class names to classes of the
// repository.
func (x *resolver) classBases(fi, class int) []target {
	id := symID{fi, class}
	if b, ok := x.bases[id]; ok {
		return b
	}
	x.bases[id] = nil // a class that (indirectly) inherits from itself
	var out []target
	for _, name := range x.scope(fi).inherits[class] {
		var t target
		switch family(x.r.Files[fi].Language) {
		case famPython:
			t = x.pyRef(fi, class, name, lang.RefInherit)
		case famJS:
			t = x.jsRef(fi, class, name, lang.RefInherit)
		}
		if t.kind == tSym {
			switch x.r.Files[t.file].Symbols[t.sym].Kind {
			case lang.KindClass, lang.KindInterface:
				out = append(out, t)
			}
		}
	}
	x.bases[id] = out
	return out
}

// dirOf returns the directory of a slash path, "" for the root.
func dirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// join joins a directory ("" for the root) and a relative path.
func join(dir, rel string) string {
	switch {
	case dir == "":
		return rel
	case rel == "":
		return dir
	}
	return dir + "/" + rel
}

func baseName(p string) string {
	return p[strings.LastIndexByte(p, '/')+1:]
}

func (s *fileScope) has(name string) bool {
	_, ok := s.top[name]
	return ok
}
