package lang

import (
	"strings"

	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

var (
	jsGrammar  = lazyGrammar(javascript.GetLanguage)
	tsGrammar  = lazyGrammar(typescript.GetLanguage)
	tsxGrammar = lazyGrammar(tsx.GetLanguage)
)

// tagged is a query pattern and the tag its handler switches on.
type tagged struct{ tag, src string }

// JS/TS definition patterns. The three grammars share most node types; the
// TypeScript-only and JSX-only ones are added per dialect.
var (
	jsDefsCommon = []tagged{
		{"function", `(function_declaration name: (identifier) @name) @def`},
		{"function", `(generator_function_declaration name: (identifier) @name) @def`},
		{"class", `(class_declaration name: (_) @name) @def`},
		{"method", `(method_definition name: (_) @name) @def`},
		{"declarator", `(variable_declarator name: (_) @name) @def`},
		{"cjs", `(program (expression_statement (assignment_expression left: (member_expression) @left right: [(function_expression) (arrow_function)] @def)) @stmt)`},
	}
	jsDefsJS = []tagged{
		{"field", `(field_definition property: (_) @name value: [(arrow_function) (function_expression)] @def)`},
	}
	jsDefsTS = []tagged{
		{"field", `(public_field_definition name: (_) @name value: [(arrow_function) (function_expression)] @def)`},
		{"class", `(abstract_class_declaration name: (_) @name) @def`},
		{"interface", `(interface_declaration name: (_) @name) @def`},
		{"type_alias", `(type_alias_declaration name: (_) @name) @def`},
		{"enum", `(enum_declaration name: (_) @name) @def`},
		{"function", `(function_signature name: (_) @name) @def`},
		{"method", `(method_signature name: (_) @name) @def`},
		{"method", `(abstract_method_signature name: (_) @name) @def`},
	}

	jsFactsCommon = []tagged{
		{"comment", `(comment) @n`},
		{"import", `(import_statement) @n`},
		{"export_from", `(export_statement source: (_) @src) @n`},
		{"call", `(call_expression function: (_) @callee arguments: (_) @args) @n`},
		{"new", `(new_expression constructor: (_) @callee) @n`},
		{"throw", `(throw_statement) @n`},
		{"assign", `(assignment_expression left: (_) @target) @n`},
		{"assign", `(augmented_assignment_expression left: (_) @target) @n`},
		{"assign", `(update_expression argument: (_) @target) @n`},
		{"delete", `(unary_expression operator: "delete" argument: (_) @target) @n`},
		{"local", `(variable_declarator name: (_) @target) @n`},
		{"params", `(formal_parameters) @n`},
		{"local", `(catch_clause parameter: (_) @target) @n`},
		{"local", `(for_in_statement left: (_) @target) @n`},
	}
	jsFactsJSX = []tagged{
		{"jsx", `(jsx_opening_element name: (_) @callee) @n`},
		{"jsx", `(jsx_self_closing_element name: (_) @callee) @n`},
	}
)

func join(lists ...[]tagged) (srcs, tags []string) {
	for _, l := range lists {
		for _, p := range l {
			srcs = append(srcs, p.src)
			tags = append(tags, p.tag)
		}
	}
	return srcs, tags
}

// JSExtractor extracts JavaScript, TypeScript or TSX files, depending on
// the constructor. Not safe for concurrent use.
type JSExtractor struct {
	e                 *engine
	defTags, factTags []string
}

// NewJavaScript returns a JavaScript (and JSX) extractor; Close it when done.
func NewJavaScript() (*JSExtractor, error) { return newJS(JavaScript) }

// NewTypeScript returns a TypeScript extractor; Close it when done.
func NewTypeScript() (*JSExtractor, error) { return newJS(TypeScript) }

// NewTSX returns a TSX extractor; Close it when done.
func NewTSX() (*JSExtractor, error) { return newJS(TSX) }

func newJS(language string) (*JSExtractor, error) {
	var (
		g           *grammar
		defs, facts [][]tagged
	)
	switch language {
	case JavaScript:
		g, defs, facts = jsGrammar(), [][]tagged{jsDefsCommon, jsDefsJS}, [][]tagged{jsFactsCommon, jsFactsJSX}
	case TypeScript:
		g, defs, facts = tsGrammar(), [][]tagged{jsDefsCommon, jsDefsTS}, [][]tagged{jsFactsCommon}
	default:
		g, defs, facts = tsxGrammar(), [][]tagged{jsDefsCommon, jsDefsTS}, [][]tagged{jsFactsCommon, jsFactsJSX}
	}
	defSrc, defTags := join(defs...)
	factSrc, factTags := join(facts...)
	e, err := newEngine(language, g, defSrc, factSrc)
	if err != nil {
		return nil, err
	}
	return &JSExtractor{e: e, defTags: defTags, factTags: factTags}, nil
}

// Language returns "javascript", "typescript" or "tsx".
func (j *JSExtractor) Language() string { return j.e.name }

func (j *JSExtractor) engine() *engine { return j.e }

// Close frees the parser and queries.
func (j *JSExtractor) Close() { j.e.close() }

// Extract parses one JavaScript/TypeScript file.
func (j *JSExtractor) Extract(path string, src []byte) (*FileFacts, error) {
	return j.e.extract(path, src, func(f *file, root *node) {
		x := &jsFile{file: f}
		j.e.run(
			func(m *match) { x.def(j.defTags[m.pattern()], m) },
			func() {
				f.finishSymbols()
				x.afterSymbols(root)
			},
			func(m *match) { x.fact(j.factTags[m.pattern()], m) })
	})
}

type jsFile struct{ *file }

// outer returns the statement a declaration belongs to: the export
// statement around it, if any.
func (x *jsFile) outer(n *node) *node {
	if p := n.Parent(); p != nil && x.typ(p) == "export_statement" {
		return p
	}
	return n
}

// sigStart skips decorators, so a signature starts at `export`, `class`...
func (x *jsFile) sigStart(n *node) uint32 {
	for i := 0; i < n.ChildCount(); i++ {
		if c := n.Child(i); x.typ(c) != "decorator" && x.typ(c) != "comment" {
			return c.StartByte()
		}
	}
	return n.StartByte()
}

func (x *jsFile) def(tag string, m *match) {
	n, name := m.get("def"), m.get("name")
	switch tag {
	case "function", "class", "interface", "type_alias", "enum":
		o := x.outer(n)
		x.declare(x.text(name), tag, o, x.sigStart(o), n, o)
	case "method":
		if p := n.Parent(); p == nil || (x.typ(p) != "class_body" && x.typ(p) != "interface_body" && x.typ(p) != "object_type") {
			return // object literal methods are part of the object
		}
		x.declare(x.text(name), KindMethod, n, x.sigStart(n), n, n)
	case "field":
		f := n.Parent()
		x.declare(x.text(name), KindMethod, f, x.sigStart(f), n, f)
	case "cjs": // exports.foo = function () {}, module.exports.foo = () => {}
		left := m.get("left")
		obj := x.text(child(left, "object"))
		if obj == "exports" || obj == "module.exports" {
			stmt := m.get("stmt")
			x.declare(x.text(child(left, "property")), KindFunction, stmt, stmt.StartByte(), n, stmt)
		}
	case "declarator":
		x.declarator(n, name)
	}
}

func (x *jsFile) declarator(n, name *node) {
	decl := n.Parent()
	if decl == nil {
		return
	}
	o := x.outer(decl)
	span, sig := n, n.StartByte()
	if decl.NamedChildCount() == 1 || x.typ(decl.NamedChild(1)) == "comment" {
		span, sig = o, x.sigStart(o)
	}
	value := child(n, "value")
	switch x.typ(value) {
	case "arrow_function", "function_expression", "function", "generator_function":
		x.declare(x.text(name), KindFunction, span, sig, value, o)
		return
	case "class":
		x.declare(x.text(name), KindClass, span, sig, value, o)
		return
	}
	if p := o.Parent(); p == nil || x.typ(p) != "program" {
		return // locals are not symbols
	}
	for _, id := range x.patternNames(name, nil) {
		x.declare(x.text(id), KindVariable, span, sig, n, o)
		x.moduleVars[x.text(id)] = true
	}
}

// patternNames returns the identifiers a binding pattern binds.
func (x *jsFile) patternNames(p *node, out []*node) []*node {
	if !x.enter() {
		return out
	}
	defer x.leave()
	switch x.typ(p) {
	case "identifier", "shorthand_property_identifier_pattern":
		return append(out, p)
	case "object_pattern", "array_pattern", "rest_pattern":
		for _, c := range namedChildren(p) {
			out = x.patternNames(c, out)
		}
	case "pair_pattern":
		return x.patternNames(child(p, "value"), out)
	case "assignment_pattern", "object_assignment_pattern": // a = 1, {a = 1}
		return x.patternNames(child(p, "left"), out)
	case "required_parameter", "optional_parameter":
		return x.patternNames(child(p, "pattern"), out)
	}
	return out
}

// afterSymbols reads what hangs off declarations: JSDoc, heritage and type
// references.
func (x *jsFile) afterSymbols(root *node) {
	x.moduleDoc(root)
	for i := range x.syms {
		d := &x.syms[i]
		if c := x.docComment(d.outer); c != nil {
			x.docComments[c.StartByte()] = true
			x.facts.Docstrings = append(x.facts.Docstrings, newDocstring(i, line(c), blockCommentText(x.text(c)), true))
		}
		switch x.typ(d.node) {
		case "class_declaration", "abstract_class_declaration", "class":
			x.heritage(i, d.node)
		case "interface_declaration":
			for _, c := range namedChildren(d.node) {
				if x.typ(c) == "extends_type_clause" || x.typ(c) == "extends_clause" {
					for _, t := range namedChildren(c) {
						x.addRef(i, RefInherit, x.typeName(t), t)
					}
				}
			}
			x.typeRefs(i, child(d.node, "body"))
		case "type_alias_declaration":
			x.typeRefs(i, child(d.node, "value"))
		case "variable_declarator":
			x.typeRefs(i, child(d.node, "type"))
		default:
			x.typeRefs(i, child(d.node, "parameters"))
			x.typeRefs(i, child(d.node, "return_type"))
		}
	}
}

// moduleDoc takes a leading /** */ comment tagged @file, @fileoverview or
// @module as the module docstring.
func (x *jsFile) moduleDoc(root *node) {
	for i := 0; i < root.NamedChildCount(); i++ {
		c := root.NamedChild(i)
		if x.typ(c) != "comment" {
			return
		}
		t := x.text(c)
		if strings.HasPrefix(t, "/**") && (strings.Contains(t, "@file") || strings.Contains(t, "@module") || strings.Contains(t, "@overview")) {
			x.docComments[c.StartByte()] = true
			x.facts.Docstrings = append(x.facts.Docstrings, newDocstring(-1, line(c), blockCommentText(t), true))
			return
		}
	}
}

// docComment returns the /** */ comment right above n (decorators between
// them allowed), or nil.
func (x *jsFile) docComment(n *node) *node {
	if n == nil {
		return nil
	}
	next := n
	for p := n.PrevSibling(); p != nil; p = p.PrevSibling() {
		switch x.typ(p) {
		case "decorator":
			next = p
			continue
		case "comment":
			if strings.HasPrefix(x.text(p), "/**") && !x.docComments[p.StartByte()] &&
				int(next.StartPoint().Row)-int(p.EndPoint().Row) <= 1 {
				return p
			}
		}
		return nil
	}
	return nil
}

func (x *jsFile) heritage(sym int, class *node) {
	for _, h := range namedChildren(class) {
		if x.typ(h) != "class_heritage" {
			continue
		}
		for _, c := range namedChildren(h) {
			switch x.typ(c) {
			case "extends_clause":
				v := child(c, "value")
				x.addRef(sym, RefInherit, jsName(x.file, v), v)
			case "implements_clause":
				for _, t := range namedChildren(c) {
					x.addRef(sym, RefInherit, x.typeName(t), t)
				}
			default: // JavaScript: class_heritage holds the expression
				x.addRef(sym, RefInherit, jsName(x.file, c), c)
			}
		}
	}
	for _, m := range namedChildren(child(class, "body")) {
		if x.typ(m) == "public_field_definition" {
			x.typeRefs(sym, child(m, "type"))
		}
	}
}

// typeName renders a type used as a base: Foo, ns.Foo, Foo<T> -> Foo.
func (x *jsFile) typeName(t *node) string {
	switch x.typ(t) {
	case "type_identifier", "identifier":
		return x.text(t)
	case "nested_type_identifier", "member_expression", "nested_identifier":
		return strings.Join(strings.Fields(x.text(t)), "")
	case "generic_type":
		return x.typeName(child(t, "name"))
	}
	return ""
}

// typeRefs records the named types in a subtree, except the type
// parameters of the symbol and its enclosing symbols.
func (x *jsFile) typeRefs(sym int, n *node) {
	if !x.enter() {
		return
	}
	defer x.leave()
	if n == nil {
		return
	}
	switch x.typ(n) {
	case "type_identifier", "nested_type_identifier":
		if name := x.typeName(n); !x.isTypeParam(sym, name) {
			x.addRef(sym, RefTypeRef, name, n)
		}
		return
	case "statement_block", "class_body", "method_signature", "abstract_method_signature":
		return // bodies, and members that are symbols of their own
	}
	for _, c := range namedChildren(n) {
		x.typeRefs(sym, c)
	}
}

func (x *jsFile) isTypeParam(sym int, name string) bool {
	for ; sym >= 0; sym = x.syms[sym].container {
		for _, tp := range namedChildren(child(x.syms[sym].node, "type_parameters")) {
			if x.text(child(tp, "name")) == name {
				return true
			}
		}
	}
	return false
}
