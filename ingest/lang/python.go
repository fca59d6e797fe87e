package lang

import (
	"regexp"
	"strings"

	"github.com/smacker/go-tree-sitter/python"
)

var pythonGrammar = lazyGrammar(python.GetLanguage)

// Python definition patterns, handled by pyFile.def.
var pyDefs = []string{
	pyDefFunction: `(function_definition name: (identifier) @name) @def`,
	pyDefClass:    `(class_definition name: (identifier) @name) @def`,
	pyDefVariable: `(module (expression_statement (assignment) @assign) @stmt)`,
}

const (
	pyDefFunction = iota
	pyDefClass
	pyDefVariable
)

// Python fact patterns, handled by pyFile.fact.
var pyFacts = []string{
	pyComment:      `(comment) @n`,
	pyImport:       `(import_statement) @n`,
	pyImportFrom:   `(import_from_statement) @n`,
	pyFutureImport: `(future_import_statement) @n`,
	pyCall:         `(call function: (_) @callee arguments: (_) @args) @n`,
	pyRaise:        `(raise_statement) @n`,
	pyAssert:       `(assert_statement) @n`,
	pyAssign:       `(assignment left: (_) @target) @n`,
	pyAugAssign:    `(augmented_assignment left: (_) @target) @n`,
	pyDelete:       `(delete_statement) @n`,
	pyGlobal:       `(global_statement) @n`,
	pyFor:          `(for_statement left: (_) @target) @n`,
	pyWithAs:       `(as_pattern_target) @target`, // with/except ... as x
	pyWalrus:       `(named_expression name: (identifier) @target) @n`,
}

const (
	pyComment = iota
	pyImport
	pyImportFrom
	pyFutureImport
	pyCall
	pyRaise
	pyAssert
	pyAssign
	pyAugAssign
	pyDelete
	pyGlobal
	pyFor
	pyWithAs
	pyWalrus
)

// PythonExtractor extracts Python files. Not safe for concurrent use.
type PythonExtractor struct{ e *engine }

// NewPython returns a Python extractor; Close it when done.
func NewPython() (*PythonExtractor, error) {
	e, err := newEngine(Python, pythonGrammar(), pyDefs, pyFacts)
	if err != nil {
		return nil, err
	}
	return &PythonExtractor{e: e}, nil
}

// Language returns "python".
func (p *PythonExtractor) Language() string { return Python }

func (p *PythonExtractor) engine() *engine { return p.e }

// Close frees the parser and queries.
func (p *PythonExtractor) Close() { p.e.close() }

// Extract parses one Python file.
func (p *PythonExtractor) Extract(path string, src []byte) (*FileFacts, error) {
	return p.e.extract(path, src, p.passes)
}

// passes extract a parsed file. A statement's structural facts depend on
// nothing outside it but the symbols around it, so they also run over a
// tree holding some of the top-level statements (ExtractStructure).
func (p *PythonExtractor) passes(f *file, root *node) {
	x := &pyFile{file: f}
	p.e.run(x.def, func() {
		f.finishSymbols()
		x.afterSymbols(root)
	}, x.fact)
}

type pyFile struct{ *file }

func (x *pyFile) def(m *match) {
	switch m.pattern() {
	case pyDefFunction, pyDefClass:
		n := m.get("def")
		kind := KindFunction
		if m.pattern() == pyDefClass {
			kind = KindClass
		}
		span := n
		if p := n.Parent(); p != nil && x.typ(p) == "decorated_definition" {
			span = p
		}
		x.declare(x.text(m.get("name")), kind, span, n.StartByte(), n, span)
	case pyDefVariable:
		stmt := m.get("stmt")
		for a := m.get("assign"); a != nil && x.typ(a) == "assignment"; a = child(a, "right") {
			for _, id := range x.boundNames(child(a, "left"), nil) {
				x.declare(x.text(id), KindVariable, stmt, stmt.StartByte(), a, stmt)
				x.moduleVars[x.text(id)] = true
			}
		}
	}
}

// boundNames returns the identifiers a target binds: x, (a, b), [c, *d].
func (x *pyFile) boundNames(t *node, out []*node) []*node {
	if !x.enter() {
		return out
	}
	defer x.leave()
	switch x.typ(t) {
	case "identifier":
		return append(out, t)
	case "pattern_list", "tuple_pattern", "list_pattern", "list_splat_pattern", "parenthesized_expression", "tuple", "list":
		for _, c := range namedChildren(t) {
			out = x.boundNames(c, out)
		}
	}
	return out
}

// afterSymbols fixes kinds and reads what hangs off each definition:
// docstrings, parameters, annotations and base classes.
func (x *pyFile) afterSymbols(root *node) {
	if s := x.docString(root); s != nil {
		x.facts.Docstrings = append(x.facts.Docstrings, newDocstring(-1, line(s), pyDocContent(x.text(s)), false))
	}
	for i := range x.syms {
		d := &x.syms[i]
		if d.sym.Kind == KindVariable {
			continue
		}
		if d.sym.Kind == KindFunction && d.container >= 0 && x.syms[d.container].sym.Kind == KindClass {
			d.sym.Kind = KindMethod
		}
		if x.typ(d.outer) == "decorated_definition" {
			// @dataclass applies a function; @register("x") is a call the
			// facts query already sees.
			for _, dec := range namedChildren(d.outer) {
				if e := dec.NamedChild(0); x.typ(dec) == "decorator" && e != nil && x.typ(e) != "call" {
					x.addRef(i, RefCall, pyName(x.file, e), e)
				}
			}
		}
		if s := x.docString(child(d.node, "body")); s != nil {
			x.facts.Docstrings = append(x.facts.Docstrings, newDocstring(i, line(s), pyDocContent(x.text(s)), false))
		}
		if d.sym.Kind == KindClass {
			for _, b := range namedChildren(child(d.node, "superclasses")) {
				if x.typ(b) == "subscript" { // Generic[T]
					b = child(b, "value")
				}
				x.addRef(i, RefInherit, pyName(x.file, b), b)
			}
			continue
		}
		for _, p := range namedChildren(child(d.node, "parameters")) {
			x.param(i, p)
		}
		x.typeRefs(i, child(d.node, "return_type"))
	}
}

// docString returns the string node that is the first statement of a
// module or block, or nil.
func (x *pyFile) docString(body *node) *node {
	if body == nil {
		return nil
	}
	for i := 0; i < body.NamedChildCount(); i++ {
		c := body.NamedChild(i)
		switch x.typ(c) {
		case "comment":
			continue
		case "expression_statement":
			if c.NamedChildCount() == 1 {
				if s := c.NamedChild(0); x.typ(s) == "string" || x.typ(s) == "concatenated_string" {
					return s
				}
			}
		}
		return nil
	}
	return nil
}

func (x *pyFile) param(sym int, p *node) {
	switch x.typ(p) {
	case "identifier":
		x.addLocal(sym, x.text(p), nil)
	case "default_parameter", "typed_default_parameter":
		x.addLocal(sym, x.text(child(p, "name")), nil)
		x.typeRefs(sym, child(p, "type"))
	case "typed_parameter":
		for _, c := range namedChildren(p) {
			if t := x.typ(c); t == "identifier" || t == "list_splat_pattern" || t == "dictionary_splat_pattern" {
				x.param(sym, c)
			}
		}
		x.typeRefs(sym, child(p, "type"))
	case "list_splat_pattern", "dictionary_splat_pattern":
		for _, c := range namedChildren(p) {
			x.param(sym, c)
		}
	}
}

// pyBuiltinTypes are annotation names no repository defines.
var pyBuiltinTypes = map[string]bool{
	"int": true, "str": true, "float": true, "bool": true, "bytes": true, "None": true, "object": true,
	"list": true, "dict": true, "set": true, "tuple": true, "frozenset": true, "type": true, "complex": true,
	"bytearray": true, "Any": true, "Optional": true, "Union": true, "List": true, "Dict": true, "Set": true,
	"Tuple": true, "FrozenSet": true, "Callable": true, "Iterable": true, "Iterator": true, "Sequence": true,
	"Mapping": true, "MutableMapping": true, "Type": true, "Literal": true, "ClassVar": true, "Final": true,
	"Generator": true, "AsyncIterator": true, "AsyncGenerator": true, "Awaitable": true, "Coroutine": true,
	"Self": true, "NoReturn": true, "Never": true, "Annotated": true, "TypeVar": true,
}

var dottedNameRe = regexp.MustCompile(`^[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*$`)

// typeRefs records the names an annotation mentions.
func (x *pyFile) typeRefs(sym int, t *node) {
	if !x.enter() {
		return
	}
	defer x.leave()
	if t == nil {
		return
	}
	switch x.typ(t) {
	case "identifier", "attribute":
		name := pyName(x.file, t)
		if name != "" && !pyBuiltinTypes[name] && !strings.HasPrefix(name, "typing.") {
			x.addRef(sym, RefTypeRef, name, t)
		}
		return
	case "string": // forward reference "Foo"
		if s := pyStringValue(x.text(t)); dottedNameRe.MatchString(s) && !pyBuiltinTypes[s] {
			x.addRef(sym, RefTypeRef, s, t)
		}
		return
	}
	for _, c := range namedChildren(t) {
		x.typeRefs(sym, c)
	}
}
