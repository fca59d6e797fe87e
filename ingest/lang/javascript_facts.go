package lang

import "strings"

// jsName renders a callee as written: foo, this.bar, a.b.c; ".m" when the
// receiver is an expression.
func jsName(f *file, n *node) string {
	if !f.enter() {
		return ""
	}
	defer f.leave()
	switch f.typ(n) {
	case "identifier", "this", "super", "property_identifier", "private_property_identifier", "type_identifier":
		return f.text(n)
	case "member_expression", "nested_identifier":
		obj, prop := child(n, "object"), child(n, "property")
		if f.typ(n) == "nested_identifier" && n.NamedChildCount() == 2 {
			obj, prop = n.NamedChild(0), n.NamedChild(1)
		}
		if base := jsName(f, obj); base != "" {
			return base + "." + f.text(prop)
		}
		return "." + f.text(prop)
	}
	return ""
}

// jsLiteral returns the text of a string-like expression: a literal, a
// template, "a" + b.
func jsLiteral(f *file, n *node) (string, bool) {
	if !f.enter() {
		return "", false
	}
	defer f.leave()
	switch f.typ(n) {
	case "string", "template_string":
		return jsStringValue(f.text(n)), true
	case "binary_expression":
		return jsLiteral(f, child(n, "left"))
	case "parenthesized_expression":
		if n.NamedChildCount() == 1 {
			return jsLiteral(f, n.NamedChild(0))
		}
	}
	return "", false
}

// literal is jsLiteral, for literalArgs.
func (x *jsFile) literal(n *node) (string, bool) { return jsLiteral(x.file, n) }

var (
	jsLogMethods = map[string]bool{"error": true, "warn": true, "warning": true, "fatal": true, "critical": true}
	// jsMutators change an array, Map or Set in place.
	jsMutators = map[string]bool{"push": true, "pop": true, "shift": true, "unshift": true, "splice": true, "sort": true,
		"reverse": true, "fill": true, "copyWithin": true, "set": true, "delete": true, "clear": true, "add": true}
)

func (x *jsFile) fact(tag string, m *match) {
	n := m.get("n")
	switch tag {
	case "comment":
		x.comment(n)
	case "import":
		x.importStmt(n)
	case "export_from":
		x.exportFrom(n, m.get("src"))
	case "call":
		x.call(n, m.get("callee"), m.get("args"))
	case "new":
		sym := x.enclosing(n.StartByte())
		name := jsName(x.file, m.get("callee"))
		x.addRef(sym, RefCall, name, n)
		if isErrorType(name) || name == "Error" {
			x.literalArgs(sym, child(n, "arguments"), x.literal)
		}
	case "throw":
		x.throw(n)
	case "assign":
		x.target(x.enclosing(n.StartByte()), m.get("target"))
	case "delete":
		x.target(x.enclosing(n.StartByte()), m.get("target"))
	case "local":
		// let/const are block scoped, var is function scoped; a for or
		// catch binding is scoped to its statement.
		var in *node
		switch x.typ(n) {
		case "variable_declarator":
			if d := n.Parent(); d != nil && x.typ(d) == "lexical_declaration" {
				in = d.Parent()
			}
		default:
			in = n
		}
		fn := x.enclosingFunc(n.StartByte())
		for _, id := range x.patternNames(m.get("target"), nil) {
			x.addLocal(fn, x.text(id), in)
		}
	case "params":
		fn := x.enclosingFunc(n.StartByte())
		for _, p := range namedChildren(n) {
			for _, id := range x.patternNames(p, nil) {
				x.addLocal(fn, x.text(id), n.Parent())
			}
		}
	case "jsx": // <Foo/> renders component Foo: a call for the resolver
		c := m.get("callee")
		if name := jsName(x.file, c); isUpperStart(name) {
			x.addRef(x.enclosing(n.StartByte()), RefCall, name, n)
		}
	}
}

func (x *jsFile) importStmt(n *node) {
	im := Import{Line: line(n), Kind: ImportPlain}
	for i := 0; i < n.ChildCount(); i++ {
		c := n.Child(i)
		switch x.typ(c) {
		case "type":
			if !c.IsNamed() {
				im.TypeOnly = true
			}
		case "string":
			im.Module = jsStringValue(x.text(c))
		case "import_require_clause": // TS: import fs = require("fs")
			im.Kind = ImportRequire
			for _, r := range namedChildren(c) {
				switch x.typ(r) {
				case "identifier":
					im.Alias = x.text(r)
				case "string":
					im.Module = jsStringValue(x.text(r))
				}
			}
		case "import_clause":
			for _, k := range namedChildren(c) {
				switch x.typ(k) {
				case "identifier":
					im.Names = append(im.Names, ImportName{Name: "default", Alias: x.text(k)})
				case "namespace_import":
					im.Names = append(im.Names, ImportName{Name: "*", Alias: x.text(k.NamedChild(0))})
				case "named_imports":
					for _, s := range namedChildren(k) {
						if x.typ(s) == "import_specifier" {
							im.Names = append(im.Names, ImportName{Name: x.text(child(s, "name")), Alias: x.text(child(s, "alias"))})
						}
					}
				}
			}
		}
	}
	x.facts.Imports = append(x.facts.Imports, im)
}

func (x *jsFile) exportFrom(n, src *node) {
	im := Import{Line: line(n), Kind: ImportExportFrom, Module: jsStringValue(x.text(src))}
	star := false
	for i := 0; i < n.ChildCount(); i++ {
		c := n.Child(i)
		switch x.typ(c) {
		case "type":
			if !c.IsNamed() {
				im.TypeOnly = true
			}
		case "*":
			star = true
		case "namespace_export":
			im.Names = append(im.Names, ImportName{Name: "*", Alias: x.text(c.NamedChild(0))})
			star = false
		case "export_clause":
			for _, s := range namedChildren(c) {
				if x.typ(s) == "export_specifier" {
					im.Names = append(im.Names, ImportName{Name: x.text(child(s, "name")), Alias: x.text(child(s, "alias"))})
				}
			}
		}
	}
	if star {
		im.Names = append(im.Names, ImportName{Name: "*"})
	}
	x.facts.Imports = append(x.facts.Imports, im)
}

func (x *jsFile) call(n, callee, args *node) {
	sym := x.enclosing(n.StartByte())
	if x.typ(callee) == "import" {
		x.requireOrImport(n, ImportDynamic, args)
		return
	}
	name := jsName(x.file, callee)
	if name == "require" {
		x.requireOrImport(n, ImportRequire, args)
		return
	}
	x.addRef(sym, RefCall, name, n)
	if x.typ(callee) != "member_expression" {
		if isErrorType(name) {
			x.literalArgs(sym, args, x.literal)
		}
		return
	}
	method := x.text(child(callee, "property"))
	recv := child(callee, "object")
	recvName := jsName(x.file, recv)
	switch {
	case jsLogMethods[method] && (recvName == "console" || hasLogReceiver(recvName)):
		x.literalArgs(sym, args, x.literal)
	case jsMutators[method]:
		x.target(sym, recv)
	}
}

// requireOrImport records require("m") and import("m") with a literal
// specifier, and the names a require is bound to.
func (x *jsFile) requireOrImport(n *node, kind string, args *node) {
	if args == nil || args.NamedChildCount() == 0 {
		return
	}
	a := args.NamedChild(0)
	if t := x.typ(a); t != "string" && !(t == "template_string" && a.NamedChildCount() <= 1 && !strings.Contains(x.text(a), "${")) {
		return
	}
	im := Import{Line: line(n), Kind: kind, Module: jsStringValue(x.text(a))}
	if p := n.Parent(); kind == ImportRequire && p != nil && x.typ(p) == "variable_declarator" {
		target := child(p, "name")
		switch x.typ(target) {
		case "identifier":
			im.Alias = x.text(target)
		case "object_pattern":
			for _, c := range namedChildren(target) {
				switch x.typ(c) {
				case "shorthand_property_identifier_pattern":
					im.Names = append(im.Names, ImportName{Name: x.text(c)})
				case "pair_pattern":
					im.Names = append(im.Names, ImportName{Name: x.text(child(c, "key")), Alias: x.text(child(c, "value"))})
				}
			}
		}
	}
	x.facts.Imports = append(x.facts.Imports, im)
}

func (x *jsFile) throw(n *node) {
	sym := x.enclosing(n.StartByte())
	var exc *node
	for _, c := range namedChildren(n) {
		if x.typ(c) != "comment" {
			exc = c
			break
		}
	}
	switch x.typ(exc) {
	case "new_expression":
		if name := jsName(x.file, child(exc, "constructor")); isUpperStart(name) {
			x.addRaise(sym, name)
		}
		x.literalArgs(sym, child(exc, "arguments"), x.literal)
	case "call_expression":
		if name := jsName(x.file, child(exc, "function")); isUpperStart(name) {
			x.addRaise(sym, name)
			x.literalArgs(sym, child(exc, "arguments"), x.literal)
		}
	case "identifier", "member_expression":
		if name := jsName(x.file, exc); isUpperStart(name) {
			x.addRaise(sym, name)
		}
	default:
		if s, ok := jsLiteral(x.file, exc); ok {
			x.addErrorString(sym, s)
		}
	}
}

// target handles an assigned, updated or deleted expression.
func (x *jsFile) target(sym int, t *node) {
	if !x.enter() {
		return
	}
	defer x.leave()
	if sym < 0 || t == nil {
		return
	}
	switch x.typ(t) {
	case "identifier":
		name := x.text(t)
		x.candidate(candidate{sym: sym, at: t.StartByte(), name: name, root: name, needModule: true})
	case "parenthesized_expression", "array_pattern", "object_pattern", "rest_pattern", "assignment_pattern":
		for _, c := range namedChildren(t) {
			x.target(sym, c)
		}
	case "shorthand_property_identifier_pattern":
		name := x.text(t)
		x.candidate(candidate{sym: sym, at: t.StartByte(), name: name, root: name, needModule: true})
	case "pair_pattern":
		x.target(sym, child(t, "value"))
	case "member_expression", "subscript_expression":
		var props []string
		for {
			switch x.typ(t) {
			case "member_expression":
				props = append(props, x.text(child(t, "property")))
				t = child(t, "object")
				continue
			case "subscript_expression":
				props = props[:0]
				t = child(t, "object")
				continue
			}
			break
		}
		switch x.typ(t) {
		case "this":
			if len(props) > 0 {
				x.addMutate(sym, "this."+props[len(props)-1])
			}
		case "identifier":
			root := x.text(t)
			x.candidate(candidate{sym: sym, at: t.StartByte(), name: root, root: root, needModule: true})
		}
	}
}
