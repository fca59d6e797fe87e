package resolve

import (
	"path"
	"strings"

	"github.com/cra-dev/cra/ingest/lang"
)

// jsExts are tried, in order, after a relative specifier that names no file
// as written: TypeScript sources first, since a repository with both holds
// the sources and their compiled output.
var jsExts = []string{".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"}

// jsOutToSrc maps the extension a TypeScript ESM import is written with (the
// compiled output's) to the source extensions it stands for.
var jsOutToSrc = map[string][]string{
	".js":  {".ts", ".tsx"},
	".jsx": {".tsx"},
	".mjs": {".mts"},
	".cjs": {".cts"},
}

// jsModule resolves a relative specifier of file fi to a file: the path as
// written, then a .js-style specifier's TypeScript source, then the path
// with each extension, then dir/index with each extension. Bare specifiers
// (packages, node: builtins) and tsconfig path aliases are not resolved: the
// facts hold neither package.json nor tsconfig.json.
func (x *resolver) jsModule(fi int, spec string) int {
	if i := strings.IndexAny(spec, "?#"); i >= 0 {
		spec = spec[:i] // bundler queries: ./icon.svg?raw
	}
	if spec != "." && spec != ".." && !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") {
		return -1
	}
	p := path.Join(dirOf(x.r.Files[fi].Path), spec)
	switch {
	case p == "..", strings.HasPrefix(p, "../"):
		return -1 // outside the repository
	case p == ".":
		p = ""
	}
	if p != "" {
		if f := x.file(p); f >= 0 {
			return f
		}
		ext := path.Ext(p)
		for _, src := range jsOutToSrc[ext] {
			if f := x.file(strings.TrimSuffix(p, ext) + src); f >= 0 {
				return f
			}
		}
		for _, ext := range jsExts {
			if f := x.file(p + ext); f >= 0 {
				return f
			}
		}
	}
	for _, ext := range jsExts {
		if f := x.file(join(p, "index"+ext)); f >= 0 {
			return f
		}
	}
	return -1
}

// jsDeps appends the files file fi's imports, re-exports, requires and
// literal dynamic imports resolve to.
func (x *resolver) jsDeps(fi int, out []int) []int {
	for _, im := range x.r.Files[fi].Imports {
		out = appendFile(out, x.jsModule(fi, im.Module))
	}
	return out
}

// jsBindings records the names a JS/TS file's imports bind: named imports
// ({a as b} binds b to a in the module), namespace imports and whole-module
// requires (bound to the module), and what `export ... from` re-exports.
//
// A default import binds nothing: the facts do not say which symbol a module
// exports as default, and guessing from the local name would be a guess.
func (x *resolver) jsBindings(fi int) *bindings {
	b := newBindings()
	for _, im := range x.r.Files[fi].Imports {
		if im.Kind == lang.ImportDynamic {
			continue // its value is a promise, bound nowhere we can see
		}
		to := x.jsModule(fi, im.Module)
		mod := target{kind: tModule, file: to}
		if im.Alias != "" {
			b.imported[im.Alias] = true
			if to >= 0 {
				setBinding(b, im.Alias, binding{mod: mod})
			}
		}
		for _, n := range im.Names {
			local := n.Alias
			if local == "" {
				local = n.Name
			}
			if im.Kind == lang.ImportExportFrom {
				switch {
				case to < 0 || n.Name == "default":
				case n.Name == "*" && n.Alias == "":
					b.stars = append(b.stars, to)
				case n.Name == "*":
					b.exports[local] = binding{mod: mod}
				default:
					b.exports[local] = binding{mod: mod, name: n.Name}
				}
				continue
			}
			b.imported[local] = true
			switch {
			case to < 0 || n.Name == "default":
			case n.Name == "*":
				setBinding(b, local, binding{mod: mod})
			default:
				setBinding(b, local, binding{mod: mod, name: n.Name})
			}
		}
	}
	return b
}

// jsRef resolves a JS/TS reference made by symbol sym of file fi:
//   - this.m: member m of the enclosing class, then of the classes it extends;
//   - super.m: member m of the extended classes;
//   - a bare or dotted name: a definition visible from the caller (nested
//     functions, then module level), else an import binding; then each
//     further part is a member (namespace export, class member).
func (x *resolver) jsRef(fi, sym int, name, kind string) target {
	head, rest, _ := strings.Cut(name, ".")
	switch head {
	case "":
		return noTarget
	case "this":
		c := x.enclosingClass(fi, sym)
		if c < 0 || rest == "" {
			return noTarget
		}
		return x.walk(symTarget(fi, c), rest)
	case "super":
		return x.superMember(fi, sym, rest)
	}
	f := &x.r.Files[fi]
	b := x.bindings(fi)
	if k := x.lexical(fi, sym, head, kind); k >= 0 {
		// `const x = require('m')` is a variable that is the import.
		if f.Symbols[k].Kind != lang.KindVariable || parentOf(f, k) >= 0 || !b.imported[head] {
			return x.walk(symTarget(fi, k), rest)
		}
	}
	if bd, ok := b.bind[head]; ok {
		return x.walk(x.follow(bd, 0), rest)
	}
	return noTarget
}
