package lang

import "strings"

// pyName renders a callee or base as written: foo, self.bar, a.b.c,
// super().m; ".m" when the receiver is an expression.
func pyName(f *file, n *node) string {
	if !f.enter() {
		return ""
	}
	defer f.leave()
	switch f.typ(n) {
	case "identifier":
		return f.text(n)
	case "attribute":
		attr := f.text(child(n, "attribute"))
		obj := child(n, "object")
		if base := pyName(f, obj); base != "" {
			return base + "." + attr
		}
		if f.typ(obj) == "call" && f.text(child(obj, "function")) == "super" {
			return "super()." + attr
		}
		return "." + attr
	}
	return ""
}

// pyLiteral returns the text of a string-like expression: a literal, an
// implicit concatenation, "fmt" % args, "fmt".format(...), "a" + b.
func pyLiteral(f *file, n *node) (string, bool) {
	if !f.enter() {
		return "", false
	}
	defer f.leave()
	switch f.typ(n) {
	case "string":
		return pyStringValue(f.text(n)), true
	case "concatenated_string":
		var b strings.Builder
		for _, c := range namedChildren(n) {
			s, _ := pyLiteral(f, c)
			b.WriteString(s)
		}
		return b.String(), true
	case "binary_operator":
		return pyLiteral(f, child(n, "left"))
	case "call":
		if fn := child(n, "function"); f.typ(fn) == "attribute" && f.text(child(fn, "attribute")) == "format" {
			return pyLiteral(f, child(fn, "object"))
		}
	case "parenthesized_expression":
		if n.NamedChildCount() == 1 {
			return pyLiteral(f, n.NamedChild(0))
		}
	}
	return "", false
}

// literal is pyLiteral, for literalArgs.
func (x *pyFile) literal(n *node) (string, bool) { return pyLiteral(x.file, n) }

var (
	pyLogMethods = map[string]bool{"error": true, "exception": true, "critical": true, "fatal": true, "warning": true, "warn": true}
	// pyMutators are methods that change a list, dict or set in place.
	pyMutators = map[string]bool{"append": true, "extend": true, "insert": true, "remove": true, "pop": true, "popitem": true,
		"clear": true, "update": true, "add": true, "discard": true, "setdefault": true, "sort": true, "reverse": true}
)

func (x *pyFile) fact(m *match) {
	n := m.get("n")
	switch m.pattern() {
	case pyComment:
		x.comment(n)
	case pyImport:
		x.importStmt(n)
	case pyImportFrom, pyFutureImport:
		x.fromImport(n, m.pattern() == pyFutureImport)
	case pyCall:
		x.call(n, m.get("callee"), m.get("args"))
	case pyRaise:
		x.raise(n)
	case pyAssert:
		if c := namedChildren(n); len(c) >= 2 {
			if s, ok := pyLiteral(x.file, c[len(c)-1]); ok {
				x.addErrorString(x.enclosing(n.StartByte()), s)
			}
		}
	case pyAssign, pyAugAssign:
		sym := x.enclosing(n.StartByte())
		x.target(sym, m.get("target"), true)
		if t := child(n, "type"); t != nil && sym >= 0 && x.syms[sym].sym.Kind != KindFunction && x.syms[sym].sym.Kind != KindMethod {
			x.typeRefs(sym, t) // class attributes and module variables
		}
	case pyDelete:
		sym := x.enclosing(n.StartByte())
		for _, t := range namedChildren(n) {
			x.target(sym, t, false)
		}
	case pyGlobal:
		fn := x.enclosingFunc(n.StartByte())
		for _, id := range namedChildren(n) {
			x.addGlobal(fn, x.text(id))
		}
	case pyFor, pyWithAs, pyWalrus:
		t := m.get("target")
		fn := x.enclosingFunc(t.StartByte())
		for _, id := range x.boundNames(t, nil) {
			x.addLocal(fn, x.text(id), nil)
		}
		if x.typ(t) == "as_pattern_target" {
			for _, c := range namedChildren(t) {
				for _, id := range x.boundNames(c, nil) {
					x.addLocal(fn, x.text(id), nil)
				}
			}
		}
	}
}

func (x *pyFile) importStmt(n *node) {
	for _, c := range namedChildren(n) {
		switch x.typ(c) {
		case "dotted_name":
			x.facts.Imports = append(x.facts.Imports, Import{Line: line(n), Kind: ImportPlain, Module: x.text(c)})
		case "aliased_import":
			x.facts.Imports = append(x.facts.Imports, Import{Line: line(n), Kind: ImportPlain,
				Module: x.text(child(c, "name")), Alias: x.text(child(c, "alias"))})
		}
	}
}

func (x *pyFile) fromImport(n *node, future bool) {
	im := Import{Line: line(n), Kind: ImportFrom}
	if future {
		im.Module = "__future__"
	}
	for i := 0; i < n.ChildCount(); i++ {
		c := n.Child(i)
		switch field := n.FieldNameForChild(i); {
		case field == "module_name" && x.typ(c) == "relative_import":
			for _, p := range namedChildren(c) {
				if x.typ(p) == "import_prefix" {
					im.Level = strings.Count(x.text(p), ".")
				} else {
					im.Module = x.text(p)
				}
			}
		case field == "module_name":
			im.Module = x.text(c)
		case field == "name" && x.typ(c) == "aliased_import":
			im.Names = append(im.Names, ImportName{Name: x.text(child(c, "name")), Alias: x.text(child(c, "alias"))})
		case field == "name":
			im.Names = append(im.Names, ImportName{Name: x.text(c)})
		case x.typ(c) == "wildcard_import":
			im.Names = append(im.Names, ImportName{Name: "*"})
		}
	}
	x.facts.Imports = append(x.facts.Imports, im)
}

func (x *pyFile) call(n, callee, args *node) {
	sym := x.enclosing(n.StartByte())
	name := pyName(x.file, callee)
	x.addRef(sym, RefCall, name, n)
	if x.typ(callee) != "attribute" {
		if isErrorType(name) {
			x.literalArgs(sym, args, x.literal)
		}
		return
	}
	method := x.text(child(callee, "attribute"))
	recv := child(callee, "object")
	recvName := pyName(x.file, recv)
	switch {
	case pyLogMethods[method] && hasLogReceiver(recvName):
		x.literalArgs(sym, args, x.literal)
	case isErrorType(name):
		x.literalArgs(sym, args, x.literal)
	case pyMutators[method]:
		x.target(sym, recv, false)
	}
}

func (x *pyFile) raise(n *node) {
	sym := x.enclosing(n.StartByte())
	var exc *node
	for i := 0; i < n.NamedChildCount(); i++ {
		if c := n.NamedChild(i); x.typ(c) != "comment" {
			exc = c
			break
		}
	}
	if cause := child(n, "cause"); exc == nil || cause != nil && cause.StartByte() == exc.StartByte() {
		return
	}
	if x.typ(exc) == "call" {
		name := pyName(x.file, child(exc, "function"))
		if isUpperStart(name) {
			x.addRaise(sym, name)
		}
		x.literalArgs(sym, child(exc, "arguments"), x.literal)
		return
	}
	if name := pyName(x.file, exc); isUpperStart(name) {
		x.addRaise(sym, name)
	}
}

// target handles an assigned, deleted or mutated expression. bind says a
// plain name is (re)bound, which makes it local unless declared global.
func (x *pyFile) target(sym int, t *node, bind bool) {
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
		if bind {
			if fn := x.enclosingFunc(t.StartByte()); fn >= 0 {
				x.addLocal(fn, name, nil)
			}
			x.candidate(candidate{sym: sym, at: t.StartByte(), name: name, root: name, needGlobal: true})
			return
		}
		x.candidate(candidate{sym: sym, at: t.StartByte(), name: name, root: name, needModule: true})
	case "pattern_list", "tuple_pattern", "list_pattern", "list_splat_pattern", "parenthesized_expression", "tuple", "list":
		for _, c := range namedChildren(t) {
			x.target(sym, c, bind)
		}
	case "attribute", "subscript":
		// Walk down to the root object: self.a.b[k] -> self.a, _cache[k] -> _cache.
		var attrs []string
		for {
			switch x.typ(t) {
			case "attribute":
				attrs = append(attrs, x.text(child(t, "attribute")))
				t = child(t, "object")
				continue
			case "subscript":
				attrs = attrs[:0]
				t = child(t, "value")
				continue
			}
			break
		}
		if x.typ(t) != "identifier" {
			return
		}
		root := x.text(t)
		if root == "self" || root == "cls" {
			if len(attrs) > 0 {
				x.addMutate(sym, root+"."+attrs[len(attrs)-1])
			}
			return
		}
		x.candidate(candidate{sym: sym, at: t.StartByte(), name: root, root: root, needModule: true})
	}
}
