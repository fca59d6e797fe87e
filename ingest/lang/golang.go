package lang

import (
	"strings"

	"github.com/smacker/go-tree-sitter/golang"
)

var goGrammar = lazyGrammar(golang.GetLanguage)

var goDefs = []tagged{
	{"function", `(function_declaration name: (identifier) @name) @def`},
	{"method", `(method_declaration name: (field_identifier) @name) @def`},
	{"type", `(type_spec name: (type_identifier) @name) @def`},
	{"alias", `(type_alias name: (type_identifier) @name) @def`},
	{"vars", `(source_file (var_declaration) @def)`},
	{"consts", `(source_file (const_declaration) @def)`},
	{"method_elem", `(method_elem name: (field_identifier) @name) @def`},
}

var goFacts = []tagged{
	{"comment", `(comment) @n`},
	{"import", `(import_spec) @n`},
	{"call", `(call_expression function: (_) @callee arguments: (argument_list) @args) @n`},
	{"return", `(return_statement) @n`},
	{"assign", `(assignment_statement left: (expression_list) @lhs) @n`},
	{"incdec", `(inc_statement) @n`},
	{"incdec", `(dec_statement) @n`},
	{"short_var", `(short_var_declaration left: (expression_list) @lhs) @n`},
	{"spec", `(var_spec) @n`},
	{"spec", `(const_spec) @n`},
	{"range", `(range_clause left: (expression_list) @lhs) @n`},
	{"param", `(parameter_declaration) @n`},
	{"param", `(variadic_parameter_declaration) @n`},
}

// GoExtractor extracts Go files. Not safe for concurrent use.
type GoExtractor struct {
	e                 *engine
	defTags, factTags []string
}

// NewGo returns a Go extractor; Close it when done.
func NewGo() (*GoExtractor, error) {
	defSrc, defTags := join(goDefs)
	factSrc, factTags := join(goFacts)
	e, err := newEngine(Go, goGrammar(), defSrc, factSrc)
	if err != nil {
		return nil, err
	}
	return &GoExtractor{e: e, defTags: defTags, factTags: factTags}, nil
}

// Language returns "go".
func (g *GoExtractor) Language() string { return Go }

func (g *GoExtractor) engine() *engine { return g.e }

// Close frees the parser and queries.
func (g *GoExtractor) Close() { g.e.close() }

// Extract parses one Go file.
func (g *GoExtractor) Extract(path string, src []byte) (*FileFacts, error) {
	return g.e.extract(path, src, func(f *file, root *node) {
		x := &goFile{file: f, recv: map[int]string{}, pkgs: map[string]string{}}
		x.readImports(root)
		g.e.run(
			func(m *match) { x.def(g.defTags[m.pattern()], m) },
			func() {
				f.finishSymbols()
				x.afterSymbols(root)
			},
			func(m *match) { x.fact(g.factTags[m.pattern()], m) })
	})
}

type goFile struct {
	*file
	recv map[int]string // method symbol -> receiver variable name
	pkgs map[string]string
}

// pkg returns the import path a package name stands for in this file
// ("f" -> "fmt" after `import f "fmt"`), or the name itself.
func (x *goFile) pkg(name string) string {
	if p, ok := x.pkgs[name]; ok {
		return p
	}
	return name
}

// readImports maps local package names to import paths.
func (x *goFile) readImports(root *node) {
	for i := 0; i < root.NamedChildCount(); i++ {
		d := root.NamedChild(i)
		switch x.typ(d) {
		case "package_clause", "comment":
			continue
		case "import_declaration":
		default:
			return // imports precede all other declarations
		}
		specs := namedChildren(d)
		if len(specs) == 1 && x.typ(specs[0]) == "import_spec_list" {
			specs = namedChildren(specs[0])
		}
		for _, s := range specs {
			if x.typ(s) != "import_spec" {
				continue
			}
			path := goStringValue(x.text(child(s, "path")))
			name := x.text(child(s, "name"))
			if name == "" {
				name = GoPackageName(path)
			}
			x.pkgs[name] = path
		}
	}
}

// GoPackageName guesses the name a Go package is imported as when the
// import has no alias. The package clause that declares it is in another
// file, but the import path's last element is what it almost always is:
// example.com/x/store -> store, k8s.io/klog/v2 -> klog, gopkg.in/yaml.v3 ->
// yaml, github.com/x/go-foo -> foo, github.com/x/foo-go -> foo.
func GoPackageName(importPath string) string {
	parts := strings.Split(importPath, "/")
	name := parts[len(parts)-1]
	if len(parts) > 1 && len(name) >= 2 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
		name = parts[len(parts)-2]
	}
	if i := strings.Index(name, ".v"); i > 0 {
		name = name[:i]
	}
	return strings.TrimSuffix(strings.TrimPrefix(name, "go-"), "-go")
}

// grouped reports a parenthesised declaration: type ( ... ), var ( ... ).
func (x *goFile) grouped(decl *node) bool {
	for i := 0; i < decl.ChildCount(); i++ {
		switch x.typ(decl.Child(i)) {
		case "(", "var_spec_list":
			return true
		}
	}
	return false
}

func (x *goFile) def(tag string, m *match) {
	n, name := m.get("def"), x.text(m.get("name"))
	switch tag {
	case "function":
		x.declare(name, KindFunction, n, n.StartByte(), n, n)
	case "method":
		x.declare(name, KindMethod, n, n.StartByte(), n, n)
	case "method_elem":
		x.declare(name, KindMethod, n, n.StartByte(), n, n)
	case "type", "alias":
		kind := KindTypeAlias
		switch x.typ(child(n, "type")) {
		case "struct_type":
			kind = KindClass
		case "interface_type":
			kind = KindInterface
		}
		span := n
		if p := n.Parent(); p != nil && x.typ(p) == "type_declaration" && !x.grouped(p) {
			span = p
		}
		x.declare(name, kind, span, span.StartByte(), n, span)
	case "vars", "consts":
		grouped := x.grouped(n)
		var specs []*node
		for _, c := range namedChildren(n) {
			switch x.typ(c) {
			case "var_spec", "const_spec":
				specs = append(specs, c)
			case "var_spec_list":
				for _, s := range namedChildren(c) {
					if x.typ(s) == "var_spec" {
						specs = append(specs, s)
					}
				}
			}
		}
		for _, s := range specs {
			span := s
			if !grouped {
				span = n
			}
			for _, id := range x.specNames(s) {
				x.declare(x.text(id), KindVariable, span, span.StartByte(), s, span)
				if tag == "vars" {
					x.moduleVars[x.text(id)] = true
				}
			}
		}
	}
}

// specNames returns the identifiers a var or const spec declares.
func (x *goFile) specNames(s *node) []*node {
	var out []*node
	for i := 0; i < s.ChildCount(); i++ {
		if c := s.Child(i); x.typ(c) == "identifier" && s.FieldNameForChild(i) == "name" {
			out = append(out, c)
		}
	}
	return out
}

func (x *goFile) afterSymbols(root *node) {
	for _, c := range namedChildren(root) {
		if x.typ(c) == "package_clause" {
			x.doc(-1, c)
			break
		}
	}
	types := map[string]int{}
	for i, d := range x.syms {
		if d.container < 0 && (d.sym.Kind == KindClass || d.sym.Kind == KindInterface || d.sym.Kind == KindTypeAlias) {
			types[d.sym.Name] = i
		}
	}
	for i := range x.syms {
		d := &x.syms[i]
		x.doc(i, d.outer)
		switch x.typ(d.node) {
		case "method_declaration":
			r := child(d.node, "receiver")
			for _, p := range namedChildren(r) {
				if x.typ(p) != "parameter_declaration" {
					continue
				}
				x.recv[i] = x.text(child(p, "name"))
				d.sym.Receiver = x.baseType(child(p, "type"))
				if t, ok := types[d.sym.Receiver]; ok {
					d.sym.Parent = t
				}
				break
			}
			fallthrough
		case "function_declaration", "method_elem":
			tp := x.typeParams(d.node)
			for _, id := range x.receiverTypeParams(d.node) {
				if tp == nil {
					tp = map[string]bool{}
				}
				tp[id] = true
			}
			x.typeRefs(i, child(d.node, "parameters"), tp)
			x.typeRefs(i, child(d.node, "result"), tp)
		case "type_spec", "type_alias":
			x.typeBody(i, d.node)
		case "var_spec", "const_spec":
			x.typeRefs(i, child(d.node, "type"), nil)
		}
	}
}

// doc records the // lines directly above n as its docstring.
func (x *goFile) doc(sym int, n *node) {
	var cs []*node
	next := n
	for p := n.PrevSibling(); p != nil && x.typ(p) == "comment"; p = p.PrevSibling() {
		if int(next.StartPoint().Row)-int(p.EndPoint().Row) != 1 || !ownLine(x.src, p.StartByte()) || x.docComments[p.StartByte()] {
			break
		}
		cs = append(cs, p)
		next = p
	}
	if len(cs) == 0 {
		return
	}
	var lines []string
	for i := len(cs) - 1; i >= 0; i-- {
		x.docComments[cs[i].StartByte()] = true
		t := x.text(cs[i])
		if strings.HasPrefix(t, "/*") {
			lines = append(lines, blockCommentText(t))
			continue
		}
		t = strings.TrimRight(strings.TrimPrefix(t, "//"), " \t\r")
		if strings.HasPrefix(t, "go:") || strings.HasPrefix(t, "nolint") {
			continue // directives are not documentation
		}
		lines = append(lines, strings.TrimPrefix(t, " "))
	}
	content := trimBlankLines(lines)
	if content == "" {
		return
	}
	x.facts.Docstrings = append(x.facts.Docstrings, newDocstring(sym, line(cs[len(cs)-1]), content, false))
}

// baseType names a receiver or embedded type: *Store[K] -> Store.
func (x *goFile) baseType(t *node) string {
	for t != nil {
		switch x.typ(t) {
		case "pointer_type", "parenthesized_type":
			t = t.NamedChild(0)
		case "generic_type":
			t = child(t, "type")
		case "type_identifier", "identifier":
			return x.text(t)
		case "qualified_type":
			return x.text(child(t, "package")) + "." + x.text(child(t, "name"))
		default:
			return ""
		}
	}
	return ""
}

func (x *goFile) typeParams(n *node) map[string]bool {
	tps := child(n, "type_parameters")
	if tps == nil {
		return nil
	}
	out := map[string]bool{}
	for _, d := range namedChildren(tps) {
		for i := 0; i < d.ChildCount(); i++ {
			if d.FieldNameForChild(i) == "name" {
				out[x.text(d.Child(i))] = true
			}
		}
	}
	return out
}

// receiverTypeParams returns K in `func (s *Store[K]) Get`.
func (x *goFile) receiverTypeParams(n *node) []string {
	var out []string
	for _, p := range namedChildren(child(n, "receiver")) {
		t := child(p, "type")
		for t != nil && x.typ(t) == "pointer_type" {
			t = t.NamedChild(0)
		}
		if x.typ(t) != "generic_type" {
			continue
		}
		for _, a := range namedChildren(child(t, "type_arguments")) {
			if x.typ(a) == "type_elem" && a.NamedChildCount() == 1 {
				a = a.NamedChild(0)
			}
			if x.typ(a) == "type_identifier" || x.typ(a) == "identifier" {
				out = append(out, x.text(a))
			}
		}
	}
	return out
}

// typeBody records what a type declaration refers to: embedded types as
// inheritance, field and underlying types as type references.
func (x *goFile) typeBody(sym int, spec *node) {
	tp := x.typeParams(spec)
	t := child(spec, "type")
	switch x.typ(t) {
	case "struct_type":
		for _, fl := range namedChildren(t) {
			for _, fd := range namedChildren(fl) {
				if x.typ(fd) != "field_declaration" {
					continue
				}
				if child(fd, "name") == nil { // embedded
					ft := child(fd, "type")
					x.addRef(sym, RefInherit, x.baseType(ft), ft)
					continue
				}
				x.typeRefs(sym, child(fd, "type"), tp)
			}
		}
	case "interface_type":
		for _, e := range namedChildren(t) {
			if x.typ(e) == "type_elem" && e.NamedChildCount() == 1 {
				if name := x.baseType(e.NamedChild(0)); name != "" {
					x.addRef(sym, RefInherit, name, e)
				}
			}
		}
	default:
		x.typeRefs(sym, t, tp)
	}
}

var goBuiltinTypes = map[string]bool{
	"bool": true, "byte": true, "complex64": true, "complex128": true, "error": true, "float32": true, "float64": true,
	"int": true, "int8": true, "int16": true, "int32": true, "int64": true, "rune": true, "string": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true, "any": true, "comparable": true,
}

// typeRefs records the named types in a signature subtree.
func (x *goFile) typeRefs(sym int, n *node, typeParams map[string]bool) {
	if !x.enter() {
		return
	}
	defer x.leave()
	if n == nil {
		return
	}
	switch x.typ(n) {
	case "type_identifier":
		if name := x.text(n); !goBuiltinTypes[name] && !typeParams[name] {
			x.addRef(sym, RefTypeRef, name, n)
		}
		return
	case "qualified_type":
		x.addRef(sym, RefTypeRef, x.baseType(n), n)
		return
	case "block":
		return
	}
	for _, c := range namedChildren(n) {
		x.typeRefs(sym, c, typeParams)
	}
}
