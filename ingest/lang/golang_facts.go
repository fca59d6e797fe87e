package lang

import "strings"

// goName renders a callee as written: f, pkg.Func, r.method, a.b.c; ".m"
// when the receiver is an expression.
func goName(f *file, n *node) string {
	if !f.enter() {
		return ""
	}
	defer f.leave()
	switch f.typ(n) {
	case "identifier", "field_identifier", "type_identifier":
		return f.text(n)
	case "selector_expression":
		field := f.text(child(n, "field"))
		if base := goName(f, child(n, "operand")); base != "" {
			return base + "." + field
		}
		return "." + field
	case "index_expression": // generic instantiation: F[int](x)
		return goName(f, child(n, "operand"))
	case "generic_type":
		return goName(f, child(n, "type"))
	}
	return ""
}

// literal returns the text of a string-like expression: a literal,
// "a" + b, or the format of fmt.Sprintf / fmt.Errorf / errors.New.
func (x *goFile) literal(n *node) (string, bool) {
	if !x.enter() {
		return "", false
	}
	defer x.leave()
	switch x.typ(n) {
	case "interpreted_string_literal", "raw_string_literal":
		return goStringValue(x.text(n)), true
	case "binary_expression":
		return x.literal(child(n, "left"))
	case "parenthesized_expression":
		if n.NamedChildCount() == 1 {
			return x.literal(n.NamedChild(0))
		}
	case "call_expression":
		fn := child(n, "function")
		if x.typ(fn) != "selector_expression" {
			break
		}
		switch x.pkg(goName(x.file, child(fn, "operand"))) + "." + x.text(child(fn, "field")) {
		case "fmt.Sprintf", "fmt.Errorf", "errors.New":
			if args := child(n, "arguments"); args != nil && args.NamedChildCount() > 0 {
				return x.literal(args.NamedChild(0))
			}
		}
	}
	return "", false
}

var (
	goStdLog    = map[string]bool{"Print": true, "Printf": true, "Println": true, "Fatal": true, "Fatalf": true, "Fatalln": true, "Panic": true, "Panicf": true, "Panicln": true}
	goLogErrors = map[string]bool{"Error": true, "Errorf": true, "Errorw": true, "Warn": true, "Warnf": true, "Warnw": true,
		"Warning": true, "Warningf": true, "Fatal": true, "Fatalf": true, "Fatalw": true, "Panic": true, "Panicf": true,
		"ErrorContext": true, "WarnContext": true, "Critical": true, "Criticalf": true}
	goErrCtors = map[string]bool{"New": true, "Newf": true, "Errorf": true, "Wrap": true, "Wrapf": true, "WithMessage": true, "WithMessagef": true}
)

func (x *goFile) fact(tag string, m *match) {
	n := m.get("n")
	switch tag {
	case "comment":
		x.comment(n)
	case "import":
		im := Import{Line: line(n), Kind: ImportPlain, Module: goStringValue(x.text(child(n, "path")))}
		if a := child(n, "name"); a != nil {
			im.Alias = x.text(a)
		}
		x.facts.Imports = append(x.facts.Imports, im)
	case "call":
		x.call(n, m.get("callee"), m.get("args"))
	case "return":
		x.ret(n)
	case "assign":
		sym := x.enclosing(n.StartByte())
		for _, t := range namedChildren(m.get("lhs")) {
			x.target(sym, t)
		}
	case "incdec":
		if n.NamedChildCount() > 0 {
			x.target(x.enclosing(n.StartByte()), n.NamedChild(0))
		}
	case "short_var":
		x.locals(n, namedChildren(m.get("lhs")), x.scopeOf(n))
	case "spec":
		if x.enclosingFunc(n.StartByte()) < 0 {
			return // package-level: a symbol, not a local
		}
		d := n.Parent()
		if d != nil && x.typ(d) == "var_spec_list" {
			d = d.Parent()
		}
		if d != nil {
			x.locals(n, x.specNames(n), d.Parent())
		}
	case "range":
		lhs := namedChildren(m.get("lhs"))
		if x.hasChild(n, ":=") {
			x.locals(n, lhs, n.Parent())
			return
		}
		sym := x.enclosing(n.StartByte())
		for _, t := range lhs {
			x.target(sym, t)
		}
	case "param":
		if x.enclosingFunc(n.StartByte()) < 0 {
			return // a function type at package level
		}
		var names []*node
		for i := 0; i < n.ChildCount(); i++ {
			if n.FieldNameForChild(i) == "name" {
				names = append(names, n.Child(i))
			}
		}
		var in *node // the function (or func literal) of the parameter list
		if l := n.Parent(); l != nil {
			in = l.Parent()
		}
		x.locals(n, names, in)
	}
}

func (x *goFile) hasChild(n *node, typ string) bool {
	for i := 0; i < n.ChildCount(); i++ {
		if x.typ(n.Child(i)) == typ {
			return true
		}
	}
	return false
}

// scopeOf returns the node a := declaration is visible in: its block, or
// the if/for/switch statement whose header holds it.
func (x *goFile) scopeOf(n *node) *node {
	p := n.Parent()
	if p != nil && x.typ(p) == "for_clause" {
		p = p.Parent()
	}
	return p
}

// locals binds identifiers in the function around n (func literals belong
// to the declared function around them), visible in scope.
func (x *goFile) locals(n *node, ids []*node, in *node) {
	fn := x.enclosingFunc(n.StartByte())
	for _, id := range ids {
		if x.typ(id) == "identifier" {
			x.addLocal(fn, x.text(id), in)
		}
	}
}

func (x *goFile) call(n, callee, args *node) {
	sym := x.enclosing(n.StartByte())
	name := goName(x.file, callee)
	x.addRef(sym, RefCall, name, n)
	switch name {
	case "panic":
		x.addRaise(sym, "panic")
		x.literalArgs(sym, args, x.literal)
		return
	case "delete", "clear":
		if args != nil && args.NamedChildCount() > 0 {
			x.target(sym, args.NamedChild(0))
		}
		return
	}
	if x.typ(callee) != "selector_expression" {
		return
	}
	method := x.text(child(callee, "field"))
	recv := goName(x.file, child(callee, "operand"))
	pkg := x.pkg(recv)
	switch {
	case pkg == "log" && goStdLog[method]:
		if strings.HasPrefix(method, "Panic") {
			x.addRaise(sym, "panic")
		}
		x.literalArgs(sym, args, x.literal)
	case goLogErrors[method] && (pkg == "log/slog" || hasLogReceiver(recv)):
		x.literalArgs(sym, args, x.literal)
	case pkg == "fmt" && method == "Errorf",
		strings.HasSuffix(pkg, "grpc/status") && (method == "Errorf" || method == "Error"),
		strings.Contains(strings.ToLower(pkg), "err") && goErrCtors[method]:
		x.literalArgs(sym, args, x.literal)
	}
}

// ret records the sentinel errors and error types a return statement
// returns: ErrX, pkg.ErrX, fmt.Errorf("...: %w", ErrX), &NotFoundError{}.
func (x *goFile) ret(n *node) {
	sym := x.enclosing(n.StartByte())
	var exprs []*node
	for _, c := range namedChildren(n) {
		if x.typ(c) == "expression_list" {
			exprs = append(exprs, namedChildren(c)...)
		} else {
			exprs = append(exprs, c)
		}
	}
	for _, e := range exprs {
		x.sentinel(sym, e, true)
	}
}

func (x *goFile) sentinel(sym int, e *node, top bool) {
	switch x.typ(e) {
	case "identifier":
		name := x.text(e)
		if isSentinelName(name) {
			x.candidate(candidate{sym: sym, at: e.StartByte(), raise: true, name: name, root: name})
		}
	case "selector_expression":
		op := child(e, "operand")
		if field := x.text(child(e, "field")); x.typ(op) == "identifier" && isSentinelName(field) {
			x.candidate(candidate{sym: sym, at: e.StartByte(), raise: true, name: x.text(op) + "." + field, root: x.text(op)})
		}
	case "unary_expression": // &NotFoundError{...}
		if top {
			x.sentinel(sym, child(e, "operand"), false)
		}
	case "composite_literal":
		if name := x.baseType(child(e, "type")); isErrorType(name) {
			x.addRaise(sym, name)
		}
	case "call_expression":
		if fn := child(e, "function"); top && x.typ(fn) == "selector_expression" &&
			x.pkg(goName(x.file, child(fn, "operand"))) == "fmt" && x.text(child(fn, "field")) == "Errorf" {
			for _, a := range namedChildren(child(e, "arguments")) {
				x.sentinel(sym, a, false)
			}
		}
	}
}

// isSentinelName accepts ErrNotFound and errClosed, not err or errs.
func isSentinelName(name string) bool {
	if len(name) <= 3 || !(strings.HasPrefix(name, "Err") || strings.HasPrefix(name, "err")) {
		return false
	}
	c := name[3]
	return c >= 'A' && c <= 'Z' || c == '_'
}

// target handles an assigned or incremented expression: package-level
// variables and receiver fields.
func (x *goFile) target(sym int, t *node) {
	if sym < 0 || t == nil {
		return
	}
	var fields []string
	for {
		switch x.typ(t) {
		case "selector_expression":
			fields = append(fields, x.text(child(t, "field")))
			t = child(t, "operand")
			continue
		case "index_expression":
			fields = fields[:0]
			t = child(t, "operand")
			continue
		case "parenthesized_expression", "unary_expression":
			if t.NamedChildCount() == 0 {
				return
			}
			t = t.NamedChild(t.NamedChildCount() - 1)
			continue
		}
		break
	}
	if x.typ(t) != "identifier" {
		return
	}
	root := x.text(t)
	if root == "_" {
		return
	}
	if fn := x.enclosingFunc(t.StartByte()); fn >= 0 && x.recv[fn] == root && root != "" {
		name := root
		if len(fields) > 0 {
			name += "." + fields[len(fields)-1]
		}
		x.addMutate(sym, name)
		return
	}
	x.candidate(candidate{sym: sym, at: t.StartByte(), name: root, root: root, needModule: true})
}
