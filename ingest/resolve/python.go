package resolve

import (
	"slices"
	"strings"

	"github.com/cra-dev/cra/ingest/lang"
)

// Python import resolution.
//
// An absolute module is looked up under each source root: the repository
// root, src/, and every directory that holds a top-level package (a
// directory with __init__.py whose parent has none: lib/pkg/__init__.py
// makes lib a root), the roots above the importing file first (see
// pyRootsFor); last under the importing file's own directory when it is not
// in a package (a script, or a test that pytest runs with its directory on
// sys.path). As in Python, a regular module or package found under any
// root wins over a namespace package (a directory without __init__.py).

// pyRootList returns the source roots, computed once.
func (x *resolver) pyRootList() []string {
	if x.pyRootsDone {
		return x.pyRoots
	}
	x.pyRootsDone = true
	pkgs := map[string]bool{}
	for _, f := range x.r.Files {
		if b := baseName(f.Path); b == "__init__.py" || b == "__init__.pyi" {
			pkgs[dirOf(f.Path)] = true
		}
	}
	var extra []string
	for d := range pkgs {
		if d == "" {
			continue // the root itself is a package: its own name is unknown
		}
		if p := dirOf(d); !pkgs[p] && p != "" && p != "src" {
			extra = append(extra, p)
		}
	}
	slices.Sort(extra)
	x.pyRoots = []string{""}
	if x.dirs["src"] {
		x.pyRoots = append(x.pyRoots, "src")
	}
	x.pyRoots = append(x.pyRoots, slices.Compact(extra)...)
	return x.pyRoots
}

// pyRootsFor orders the source roots for a file in directory here: the
// roots it is under first, innermost first, then the others. In a
// repository of several projects (services/a/app, services/b/app) `import
// app` means the importer's own project.
func (x *resolver) pyRootsFor(here string) []string {
	if r, ok := x.pyRootsByDir[here]; ok {
		return r
	}
	all := x.pyRootList()
	var out []string
	for d := here; ; d = dirOf(d) {
		if slices.Contains(all, d) {
			out = append(out, d)
		}
		if d == "" {
			break
		}
	}
	for _, r := range all {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	if x.pyRootsByDir == nil {
		x.pyRootsByDir = map[string][]string{}
	}
	x.pyRootsByDir[here] = out
	return out
}

// pyRegular finds the regular module or package rel (slash-separated) under
// base: rel.py, rel.pyi, rel/__init__.py, rel/__init__.pyi.
func (x *resolver) pyRegular(base, rel string) (target, bool) {
	p := join(base, rel)
	if rel != "" {
		if f := x.file(p + ".py"); f >= 0 {
			return target{kind: tModule, file: f}, true
		}
		if f := x.file(p + ".pyi"); f >= 0 {
			return target{kind: tModule, file: f}, true
		}
	}
	for _, init := range []string{"__init__.py", "__init__.pyi"} {
		if f := x.file(join(p, init)); f >= 0 {
			return target{kind: tModule, file: f, pkg: true, dir: p}, true
		}
	}
	return noTarget, false
}

// pyNamespace finds rel under base as a namespace package: a directory
// without __init__.py. It has no file of its own, only submodules.
func (x *resolver) pyNamespace(base, rel string) (target, bool) {
	p := join(base, rel)
	if x.dirs[p] {
		return target{kind: tModule, file: -1, pkg: true, dir: p}, true
	}
	return noTarget, false
}

// pySubmodule resolves name as a submodule of the package in dir.
func (x *resolver) pySubmodule(dir, name string) (target, bool) {
	if t, ok := x.pyRegular(dir, name); ok {
		return t, true
	}
	return x.pyNamespace(dir, name)
}

// pyImport resolves the module an import names.
func (x *resolver) pyImport(fi int, im lang.Import) (target, bool) {
	if im.Module == "__future__" {
		return noTarget, false
	}
	rel := strings.ReplaceAll(im.Module, ".", "/")
	here := dirOf(x.r.Files[fi].Path)
	if im.Level > 0 {
		base := here
		for i := 1; i < im.Level; i++ {
			if base == "" {
				return noTarget, false // above the repository root
			}
			base = dirOf(base)
		}
		if t, ok := x.pyRegular(base, rel); ok {
			return t, true
		}
		return x.pyNamespace(base, rel)
	}
	if rel == "" {
		return noTarget, false
	}
	roots := x.pyRootsFor(here)
	for _, root := range roots {
		if t, ok := x.pyRegular(root, rel); ok {
			return t, true
		}
	}
	script := x.file(join(here, "__init__.py")) < 0 && x.file(join(here, "__init__.pyi")) < 0
	if script && !slices.Contains(roots, here) {
		if t, ok := x.pyRegular(here, rel); ok {
			return t, true
		}
	}
	for _, root := range roots {
		if t, ok := x.pyNamespace(root, rel); ok {
			return t, true
		}
	}
	return noTarget, false
}

// pyDeps appends the files file fi's imports resolve to. `from p import a, b`
// depends on the submodules p/a.py and p/b.py when they are submodules, and
// on p's own file for names defined there.
func (x *resolver) pyDeps(fi int, out []int) []int {
	for _, im := range x.r.Files[fi].Imports {
		mod, ok := x.pyImport(fi, im)
		if !ok {
			continue
		}
		if im.Kind != lang.ImportFrom || len(im.Names) == 0 {
			out = appendFile(out, mod.file)
			continue
		}
		for _, n := range im.Names {
			if sub, ok := x.pyFromName(mod, n.Name); ok {
				out = appendFile(out, sub.file)
			} else {
				out = appendFile(out, mod.file)
			}
		}
	}
	return out
}

// pyFromName resolves name in `from mod import name` when it is a submodule.
func (x *resolver) pyFromName(mod target, name string) (target, bool) {
	if name == "*" || !mod.pkg {
		return noTarget, false
	}
	if t, ok := x.pyRegular(mod.dir, name); ok {
		return t, true
	}
	// A namespace subpackage only counts when the package does not define
	// the name itself.
	if mod.file >= 0 && x.scope(mod.file).has(name) {
		return noTarget, false
	}
	return x.pyNamespace(mod.dir, name)
}

func appendFile(out []int, f int) []int {
	if f >= 0 {
		out = append(out, f)
	}
	return out
}

// pyBindings records the names a Python file's imports bind. `import a.b.c`
// binds a, and the dotted name a.b.c is kept whole so that a.b.c.f resolves
// in one lookup (see pyRef); `from m import x as y` binds y to x in m, or to
// the submodule m.x.
func (x *resolver) pyBindings(fi int) *bindings {
	b := newBindings()
	for _, im := range x.r.Files[fi].Imports {
		mod, ok := x.pyImport(fi, im)
		if im.Kind != lang.ImportFrom {
			local := im.Alias
			if local == "" {
				local = im.Module
				head, _, dotted := strings.Cut(im.Module, ".")
				b.imported[head] = true
				if hm, hok := x.pyImport(fi, lang.Import{Kind: lang.ImportPlain, Module: head}); dotted && hok {
					setBinding(b, head, binding{mod: hm})
				}
			}
			b.imported[local] = true
			if ok {
				setBinding(b, local, binding{mod: mod})
			}
			continue
		}
		for _, n := range im.Names {
			if n.Name == "*" {
				if ok && mod.file >= 0 {
					b.stars = append(b.stars, mod.file)
				}
				continue
			}
			local := n.Alias
			if local == "" {
				local = n.Name
			}
			b.imported[local] = true
			if !ok {
				continue
			}
			if sub, isSub := x.pyFromName(mod, n.Name); isSub {
				setBinding(b, local, binding{mod: sub})
			} else {
				setBinding(b, local, binding{mod: mod, name: n.Name})
			}
		}
	}
	return b
}

// setBinding keeps the first import that resolves: in `try: from fast
// import f / except ImportError: from slow import f` both are real, and the
// first is the one meant.
func setBinding(b *bindings, local string, bd binding) {
	if _, ok := b.bind[local]; !ok {
		b.bind[local] = bd
	}
}

// pyRef resolves a Python reference made by symbol sym of file fi:
//   - self.m / cls.m: member m of the caller's class, then of its bases;
//   - super().m: member m of the bases;
//   - a bare or dotted name: a definition visible from the caller (nested
//     functions, then module level: a local definition shadows an import),
//     else an import binding, the longest dotted one first (import a.b.c),
//     else a name from a `from m import *` module; then each further part
//     is a member (module attribute, class member, submodule).
func (x *resolver) pyRef(fi, sym int, name, kind string) target {
	head, rest, _ := strings.Cut(name, ".")
	switch head {
	case "":
		return noTarget // ".m": the receiver is an expression
	case "self", "cls":
		if rest == "" {
			return noTarget
		}
		c := x.enclosingClass(fi, sym)
		if c < 0 {
			return noTarget
		}
		return x.walk(symTarget(fi, c), rest)
	case "super()":
		return x.superMember(fi, sym, rest)
	}
	if k := x.lexical(fi, sym, head, kind); k >= 0 {
		return x.walk(symTarget(fi, k), rest)
	}
	b := x.bindings(fi)
	for end := len(name); end > 0; end = strings.LastIndexByte(name[:end], '.') {
		if bd, ok := b.bind[name[:end]]; ok {
			rest = ""
			if end < len(name) {
				rest = name[end+1:]
			}
			return x.walk(x.follow(bd, 0), rest)
		}
	}
	for _, st := range b.stars {
		if t := x.lookupTop(st, head, 1); t.kind != tNone {
			return x.walk(t, rest)
		}
	}
	return noTarget
}

// superMember resolves super().m (Python) and super.m (JS): the first base
// of the caller's class that has m.
func (x *resolver) superMember(fi, sym int, rest string) target {
	part, rest, _ := strings.Cut(rest, ".")
	c := x.enclosingClass(fi, sym)
	if c < 0 || part == "" {
		return noTarget
	}
	for _, b := range x.classBases(fi, c) {
		if t := x.classMember(b.file, b.sym, part, 1); t.kind != tNone {
			return x.walk(t, rest)
		}
	}
	return noTarget
}
