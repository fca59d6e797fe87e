package lang

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

const (
	// MaxFileBytes is the largest file Extract parses; bigger files are
	// generated or data, and tree-sitter's error recovery is slow on them.
	MaxFileBytes = 2 << 20
	// parseTimeoutMicros bounds one parse, so that garbage input cannot
	// stall a worker.
	parseTimeoutMicros = 10_000_000
)

// ErrTooLarge is returned (wrapped) by Extract for files over MaxFileBytes.
var ErrTooLarge = errors.New("file too large to parse")

// grammar is a tree-sitter language with its node-type and field names
// indexed by id, read once so that flattening a tree copies no C strings.
// It is read-only after construction and shared by all extractors.
type grammar struct {
	lang   *sitter.Language
	c      unsafe.Pointer // the C TSLanguage
	types  []string
	fields []string // fields[0] is "" (no field)
}

func newGrammar(l *sitter.Language) *grammar {
	n := l.SymbolCount()
	types := make([]string, n)
	for i := uint32(0); i < n; i++ {
		types[i] = l.SymbolName(sitter.Symbol(i))
	}
	fields := []string{""}
	for i := 1; ; i++ {
		name := l.FieldName(i)
		if name == "" {
			break
		}
		fields = append(fields, name)
	}
	return &grammar{lang: l, c: cLanguage(l), types: types, fields: fields}
}

// typeName returns a symbol's node type; the ERROR symbol is outside the
// table.
func (g *grammar) typeName(s uint16) string {
	if int(s) < len(g.types) {
		return g.types[s]
	}
	return "ERROR"
}

func (g *grammar) fieldName(f uint16) string {
	if int(f) < len(g.fields) {
		return g.fields[f]
	}
	return ""
}

// engine is the tree-sitter state one extractor owns: a parser, the
// compiled patterns and the buffers reused from file to file. None of it may
// be shared between goroutines.
type engine struct {
	name   string
	g      *grammar
	parser parser
	pats   *patternSet
	tree   flatTree
	held   []match   // fact matches waiting for the symbol table
	tops   []topNode // the root's children, for extractChunked
	// For ExtractFrom: the tree to parse from, whether to keep the tree
	// parsed, and the tree kept.
	base *Tree
	keep bool
	kept *Tree
	// fromBase counts the parses that reused a base, and parsed the
	// bytes given to tree-sitter but line ends (a row blanked out is a
	// line end alone, see regions.go), for the tests.
	fromBase, parsed int
}

// newEngine compiles the definition and fact patterns into one set, so a
// file is walked once.
func newEngine(name string, g *grammar, defs, facts []string) (*engine, error) {
	ps, err := compilePatterns(g, defs, facts)
	if err != nil {
		return nil, fmt.Errorf("lang: compile %s patterns: %w", name, err)
	}
	p, err := newParser(g)
	if err != nil {
		return nil, fmt.Errorf("lang: %s parser: %w", name, err)
	}
	return &engine{name: name, g: g, pats: ps, parser: p}, nil
}

func (e *engine) close() {
	e.tree.close()
	e.parser.close()
	e.tree = flatTree{}
	e.held = nil
}

// parse parses src and copies its tree into e.tree (the children of the
// root take chooses, see flatTree.parse), returning the root. The tree
// stays open until e.tree.close.
func (e *engine) parse(path string, src []byte, take []uint8) (*node, error) {
	if e.parser.c == nil {
		return nil, fmt.Errorf("lang: %s extractor used after Close", e.name)
	}
	if len(src) > MaxFileBytes {
		return nil, fmt.Errorf("parse %s: %d bytes: %w", path, len(src), ErrTooLarge)
	}
	e.parsed += len(src) - bytes.Count(src, newline)
	root := e.parseTree(src, take)
	if root == nil {
		return nil, fmt.Errorf("parse %s: %w", path, sitter.ErrOperationLimit)
	}
	return root, nil
}

// run matches the patterns over the flattened tree in one walk.
// Definition matches go to def as they come; fact matches are held until
// between has run (facts need the finished symbol table) and then go to fact
// in match order. A match's pattern() is its index in its own pattern list.
func (e *engine) run(def func(*match), between func(), fact func(*match)) {
	held := e.held[:0]
	var buf [8]match
	for i := range e.tree.nodes { // pre-order, as a query cursor walks
		ms := e.pats.matchesAt(&e.tree.nodes[i], buf[:0])
		for j := range ms {
			m := &ms[j]
			if m.idx < e.pats.nDefs {
				def(m)
			} else {
				m.idx -= e.pats.nDefs
				held = append(held, *m)
			}
		}
	}
	between()
	for i := range held {
		fact(&held[i])
	}
	clear(held) // let go of the nodes
	e.held = held[:0]
}

// countErrors counts ERROR and MISSING nodes, descending only into subtrees
// that hold an error, as a tree-sitter cursor walk would. Nodes are in
// pre-order, so a node is reached when its parent was and holds an error.
func countErrors(root *node) int {
	if root == nil || !root.HasError() {
		return 0
	}
	nodes := root.t.nodes
	reached := make([]bool, len(nodes))
	n := 0
	for i := range nodes {
		x := &nodes[i]
		reached[i] = x.up == nil || reached[x.up.idx] && x.up.HasError()
		if reached[i] && (x.IsError() || x.IsMissing()) {
			n++
		}
	}
	return n
}

// lazyGrammar builds a grammar once per process; languages are static C data.
func lazyGrammar(get func() *sitter.Language) func() *grammar {
	return sync.OnceValue(func() *grammar { return newGrammar(get()) })
}

// extract runs one language's passes over a parsed file. The tree is closed
// before it returns; a panic in a pass becomes an error so that one odd file
// cannot stop a batch (the fuzz tests make sure there are none).
func (e *engine) extract(path string, src []byte, passes func(f *file, root *node)) (*FileFacts, error) {
	src = bytes.TrimPrefix(src, utf8BOM)
	root, err := e.parse(path, src, nil)
	if err != nil {
		return nil, err
	}
	return e.guarded(path, func() (*FileFacts, error) { return e.passesOver(path, src, root, passes, false), nil })
}

// guarded runs extract over the tree parsed last, closes the tree, and
// turns a panic into an error.
func (e *engine) guarded(path string, extract func() (*FileFacts, error)) (facts *FileFacts, err error) {
	defer e.tree.close()
	defer func() {
		if r := recover(); r != nil {
			facts, err = nil, fmt.Errorf("extract %s (%s): %w: %v", path, e.name, errInternal, r)
		}
	}()
	return extract()
}

// passesOver runs passes over the copy of the tree under root; with
// structural, for Structure's facts only (see file).
func (e *engine) passesOver(path string, src []byte, root *node, passes func(f *file, root *node), structural bool) *FileFacts {
	f := newFile(path, e.name, src)
	f.structural = structural
	passes(f, root)
	return f.finish(root)
}

var (
	newline     = []byte{'\n'}
	utf8BOM     = []byte{0xEF, 0xBB, 0xBF}
	errInternal = errors.New("internal error")
)
