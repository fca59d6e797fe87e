package resolve

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/mod/modfile"

	"github.com/cra-dev/cra/ingest/lang"
)

// GoModulePath returns the module path a go.mod declares, "" when it has no
// module directive or does not parse.
func GoModulePath(gomod []byte) string {
	f, err := modfile.ParseLax("go.mod", gomod, nil)
	if err != nil || f.Module == nil {
		return ""
	}
	return f.Module.Mod.Path
}

// goModule is one go.mod of the repository.
type goModule struct{ path, dir string }

type methodKey struct{ recv, name string }

// goPkg is one directory's Go files: a package (with its in-package tests).
// Its maps hold heads of lists in the resolver's goList.
type goPkg struct {
	files   []int
	names   map[string]int32    // package-level declarations (not methods)
	types   map[string]int32    // the type declarations among them
	methods map[methodKey]int32 // methods by receiver type name
}

// symList is an arena of linked lists of symbols: mapping a name to the
// head of its list costs one map entry, where a slice per name would cost
// an allocation per name. Heads and links are 1-based; 0 ends a list.
type symList struct {
	ids  []symID
	next []int32
}

// push prepends id to the list at head and returns the new head.
func (l *symList) push(head int32, id symID) int32 {
	l.ids = append(l.ids, id)
	l.next = append(l.next, head)
	return int32(len(l.ids))
}

var emptyPkg = &goPkg{}

// goPackage returns the Go package in dir (empty when there is none). The
// index of every package is built on first use.
func (x *resolver) goPackage(dir string) *goPkg {
	if x.goPkgs == nil {
		x.goPkgs = map[string]*goPkg{}
		for fi := range x.r.Files {
			f := &x.r.Files[fi]
			if family(f.Language) != famGo || !strings.HasSuffix(f.Path, ".go") {
				continue
			}
			d := dirOf(f.Path)
			p := x.goPkgs[d]
			if p == nil {
				p = &goPkg{names: map[string]int32{}, types: map[string]int32{}, methods: map[methodKey]int32{}}
				x.goPkgs[d] = p
			}
			p.files = append(p.files, fi)
			for si, s := range f.Symbols {
				id := symID{fi, si}
				switch {
				case s.Kind == lang.KindMethod && s.Receiver != "":
					// Methods are found by receiver, not Parent: a method's
					// type is often declared in another file (Parent -1).
					k := methodKey{s.Receiver, s.Name}
					p.methods[k] = x.goList.push(p.methods[k], id)
				case parentOf(f, si) < 0 && s.Kind != lang.KindMethod:
					p.names[s.Name] = x.goList.push(p.names[s.Name], id)
					switch s.Kind {
					case lang.KindClass, lang.KindInterface, lang.KindTypeAlias:
						p.types[s.Name] = x.goList.push(p.types[s.Name], id)
					}
				}
			}
		}
	}
	if p := x.goPkgs[dir]; p != nil {
		return p
	}
	return emptyPkg
}

func isGoTest(p string) bool { return strings.HasSuffix(p, "_test.go") }

// goVisible reports whether a declaration in file fi can be seen from the
// file being resolved: declarations in _test.go files exist only for the
// tests of their own directory.
func (x *resolver) goVisible(fi int) bool {
	p := x.r.Files[fi].Path
	if !isGoTest(p) {
		return true
	}
	from := x.r.Files[x.from].Path
	return isGoTest(from) && dirOf(from) == dirOf(p)
}

func (x *resolver) anyVisible(head int32) bool {
	for h := head; h > 0; h = x.goList.next[h-1] {
		if x.goVisible(x.goList.ids[h-1].file) {
			return true
		}
	}
	return false
}

func (x *resolver) goHasName(dir, name string) bool {
	return x.anyVisible(x.goPackage(dir).names[name])
}

func (x *resolver) goIsType(dir, name string) bool {
	return x.anyVisible(x.goPackage(dir).types[name])
}

// goModules returns the repository's modules, longest path first, so that
// the first one an import path falls under is the innermost.
func (x *resolver) goModules() []goModule {
	if x.goMods == nil {
		x.goMods = []goModule{}
		x.goModDirs = map[string]bool{}
		for d, p := range x.r.GoModules {
			if p != "" {
				x.goMods = append(x.goMods, goModule{path: p, dir: cleanDir(d)})
				x.goModDirs[cleanDir(d)] = true
			}
		}
		slices.SortFunc(x.goMods, func(a, b goModule) int {
			return cmp.Or(cmp.Compare(len(b.path), len(a.path)), cmp.Compare(a.path, b.path), cmp.Compare(a.dir, b.dir))
		})
	}
	return x.goMods
}

func cleanDir(d string) string {
	d = strings.Trim(d, "/")
	if d == "." {
		return ""
	}
	return strings.TrimPrefix(d, "./")
}

// goOwner returns the directory of the go.mod that owns dir, ok false when
// no go.mod of the repository is above it.
func (x *resolver) goOwner(dir string) (string, bool) {
	x.goModules()
	for cur := dir; ; cur = dirOf(cur) {
		if x.goModDirs[cur] {
			return cur, true
		}
		if cur == "" {
			return "", false
		}
	}
}

// goImportDir maps an import path to a package directory of the repository:
// the module with the longest path that prefixes it, then the rest of the
// path under that module's directory. A directory that belongs to a nested
// module (its own go.mod) is not part of the outer module, whatever its
// path, so it does not count. Standard library and other modules' paths
// match no module.
func (x *resolver) goImportDir(importPath string) (string, bool) {
	for _, m := range x.goModules() {
		var d string
		switch {
		case importPath == m.path:
			d = m.dir
		case strings.HasPrefix(importPath, m.path+"/"):
			d = join(m.dir, importPath[len(m.path)+1:])
		default:
			continue
		}
		if owner, ok := x.goOwner(d); !ok || owner != m.dir || len(x.goPackage(d).files) == 0 {
			return "", false
		}
		return d, true
	}
	return "", false
}

// goDeps appends every non-test .go file of each imported package of the
// repository.
func (x *resolver) goDeps(fi int, out []int) []int {
	for _, im := range x.r.Files[fi].Imports {
		d, ok := x.goImportDir(im.Module)
		if !ok {
			continue
		}
		for _, f := range x.goPackage(d).files {
			if !isGoTest(x.r.Files[f].Path) {
				out = append(out, f)
			}
		}
	}
	return out
}

// goBindings records the package names a Go file's imports bind. Without an
// alias the name is the one the package declares, which the facts do not
// carry; the import path's last element (without a /vN major version) is
// what it almost always is.
func (x *resolver) goBindings(fi int) *bindings {
	b := newBindings()
	b.goImports = map[string]string{}
	for _, im := range x.r.Files[fi].Imports {
		name := im.Alias
		if name == "" {
			name = lang.GoPackageName(im.Module)
		}
		if name == "_" {
			continue
		}
		b.imported[name] = true
		d, ok := x.goImportDir(im.Module)
		if !ok {
			continue
		}
		if name == "." {
			b.goDots = append(b.goDots, d)
		} else if _, dup := b.goImports[name]; !dup {
			b.goImports[name] = d
		}
	}
	return b
}

// goRef resolves a Go reference made by symbol sym of file fi:
//   - x.M in a method whose receiver variable is x: method M of the
//     receiver type, or promoted from a type it embeds;
//   - Name: a package-level declaration of any file of the same directory,
//     else of a dot-imported package;
//   - pkg.Name: a package-level declaration of the imported package;
//   - T.M (a method expression, or pkg.T.M): method M of type T.
func (x *resolver) goRef(fi, sym int, name string) target {
	head, rest, _ := strings.Cut(name, ".")
	if head == "" {
		return noTarget
	}
	f := &x.r.Files[fi]
	dir := dirOf(f.Path)
	s := &f.Symbols[sym]
	recv := ""
	if s.Kind == lang.KindMethod && s.Receiver != "" && !strings.Contains(s.Receiver, ".") {
		recv = s.Receiver
	}
	v, parsed := receiverVar(s.Signature)
	if recv != "" && rest != "" && parsed && v != "" && v != "_" && head == v {
		return x.walk(target{kind: tGoType, dir: dir, name: recv}, rest)
	}
	if x.goHasName(dir, head) {
		return x.walk(target{kind: tGoName, dir: dir, name: head}, rest)
	}
	b := x.bindings(fi)
	if d, ok := b.goImports[head]; ok && rest != "" {
		return x.walk(target{kind: tGoPkg, dir: d}, rest)
	}
	for _, d := range b.goDots {
		if x.goHasName(d, head) {
			return x.walk(target{kind: tGoName, dir: d, name: head}, rest)
		}
	}
	// Without a signature the receiver variable is unknown. Receivers are
	// named per method and used on nearly every line of it, so x.M where x
	// is no package-level name or import and the receiver type has a method
	// M is taken as a call on the receiver. One level only: x.f.M goes
	// through a field whose type is unknown.
	if recv != "" && !parsed && rest != "" && !strings.Contains(rest, ".") && !b.imported[head] {
		return x.walk(target{kind: tGoType, dir: dir, name: recv}, rest)
	}
	return noTarget
}

// receiverVar reads the receiver variable from a method signature:
// "func (s *Store[K]) Get(" → s. parsed is false when the signature is not
// a method declaration's first line (empty, when facts were stored
// without it); name is "" for an unnamed receiver: func (Store) M().
func receiverVar(sig string) (name string, parsed bool) {
	s, ok := strings.CutPrefix(strings.TrimSpace(sig), "func")
	if !ok {
		return "", false
	}
	s, ok = strings.CutPrefix(strings.TrimLeft(s, " \t"), "(")
	if !ok {
		return "", false
	}
	s = strings.TrimLeft(s, " \t")
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r != '_' && !isLetterOrDigit(r) {
			break
		}
		i += n
	}
	name, after := s[:i], strings.TrimLeft(s[i:], " \t")
	if name == "" || after == "" || after[0] == ')' || after[0] == '[' || after[0] == '.' {
		return "", true // func (Store) M(), func (Store[K]) M()
	}
	return name, true
}

func isLetterOrDigit(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r >= utf8.RuneSelf
}

// goMember finds member name of type typ in package dir: a method declared
// with that receiver, an interface's method, or a method promoted from an
// embedded type.
func (x *resolver) goMember(dir, typ, name string, depth int) target {
	p := x.goPackage(dir)
	if x.anyVisible(p.methods[methodKey{typ, name}]) {
		return target{kind: tGoMethod, dir: dir, recv: typ, name: name}
	}
	for h := p.types[typ]; h > 0; h = x.goList.next[h-1] {
		t := x.goList.ids[h-1]
		if !x.goVisible(t.file) {
			continue
		}
		if k := x.kidNamed(t.file, t.sym, name); k >= 0 {
			return symTarget(t.file, k)
		}
	}
	if depth >= maxBaseDepth {
		return noTarget
	}
	for h := p.types[typ]; h > 0; h = x.goList.next[h-1] {
		t := x.goList.ids[h-1]
		if !x.goVisible(t.file) {
			continue
		}
		for _, e := range x.goEmbedded(t) {
			if r := x.goMember(e.dir, e.name, name, depth+1); r.kind != tNone {
				return r
			}
		}
	}
	return noTarget
}

// goEmbedded resolves the types a struct embeds (or an interface includes)
// to types of the repository.
func (x *resolver) goEmbedded(id symID) []target {
	if b, ok := x.bases[id]; ok {
		return b
	}
	x.bases[id] = nil // a type that (indirectly) embeds itself
	var out []target
	for _, name := range x.scope(id.file).inherits[id.sym] {
		t := x.goRef(id.file, id.sym, strings.TrimPrefix(name, "*"))
		if t.kind == tGoName && x.goIsType(t.dir, t.name) {
			out = append(out, target{kind: tGoType, dir: t.dir, name: t.name})
		}
	}
	x.bases[id] = out
	return out
}
