package lang

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

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

// grammar is a tree-sitter language with its node-type names indexed by
// symbol, so node types are read without a cgo string copy per node. It is
// read-only after construction and shared by all extractors.
type grammar struct {
	lang  *sitter.Language
	types []string
}

func newGrammar(l *sitter.Language) *grammar {
	n := l.SymbolCount()
	types := make([]string, n)
	for i := uint32(0); i < n; i++ {
		types[i] = l.SymbolName(sitter.Symbol(i))
	}
	return &grammar{lang: l, types: types}
}

// typeOf returns a node's type; the ERROR symbol is outside the table.
func (g *grammar) typeOf(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	if s := int(n.Symbol()); s < len(g.types) {
		return g.types[s]
	}
	return "ERROR"
}

// query is a compiled query with its capture names.
type query struct {
	q     *sitter.Query
	names []string
}

// compile builds one query from patterns; a match's PatternIndex is the
// index of the pattern in the slice.
func compile(g *grammar, patterns []string) (*query, error) {
	q, err := sitter.NewQuery([]byte(strings.Join(patterns, "\n")), g.lang)
	if err != nil {
		return nil, err
	}
	if int(q.PatternCount()) != len(patterns) {
		q.Close()
		return nil, fmt.Errorf("%d patterns compiled as %d", len(patterns), q.PatternCount())
	}
	names := make([]string, q.CaptureCount())
	for i := range names {
		names[i] = q.CaptureNameForId(uint32(i))
	}
	return &query{q: q, names: names}, nil
}

// engine is the tree-sitter state one extractor owns: a parser, one query
// and a query cursor. None of it may be shared between goroutines.
type engine struct {
	name   string
	g      *grammar
	parser *sitter.Parser
	cursor *sitter.QueryCursor
	query  *query
	nDefs  int // the query's first nDefs patterns find definitions
}

// newEngine compiles the definition and fact patterns into one query, so a
// file is walked by the query cursor once.
func newEngine(name string, g *grammar, defs, facts []string) (*engine, error) {
	q, err := compile(g, append(append([]string(nil), defs...), facts...))
	if err != nil {
		return nil, fmt.Errorf("lang: compile %s query: %w", name, err)
	}
	e := &engine{name: name, g: g, query: q, nDefs: len(defs)}
	e.parser = sitter.NewParser()
	e.parser.SetLanguage(g.lang)
	e.parser.SetOperationLimit(parseTimeoutMicros)
	e.cursor = sitter.NewQueryCursor()
	return e, nil
}

func (e *engine) close() {
	if e.query != nil {
		e.query.q.Close()
		e.query = nil
	}
	if e.cursor != nil {
		e.cursor.Close()
		e.cursor = nil
	}
	if e.parser != nil {
		e.parser.Close()
		e.parser = nil
	}
}

// parse parses src into a tree the caller must Close.
func (e *engine) parse(path string, src []byte) (*sitter.Tree, error) {
	if e.parser == nil {
		return nil, fmt.Errorf("lang: %s extractor used after Close", e.name)
	}
	if len(src) > MaxFileBytes {
		return nil, fmt.Errorf("parse %s: %d bytes: %w", path, len(src), ErrTooLarge)
	}
	tree, err := e.parser.ParseCtx(context.Background(), nil, src)
	if err != nil {
		e.parser.Reset()
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	return tree, nil
}

// run executes the query over root in one walk. Definition matches go to
// def as they come; fact matches are held until between has run (facts need
// the finished symbol table) and then go to fact in match order. A match's
// pattern() is its index in its own pattern list.
func (e *engine) run(root *sitter.Node, def func(match), between func(), fact func(match)) {
	e.cursor.Exec(e.query.q, root)
	var held []match
	for {
		qm, ok := e.cursor.NextMatch()
		if !ok {
			break
		}
		if i := int(qm.PatternIndex); i < e.nDefs {
			def(match{q: e.query, m: qm, idx: i})
		} else {
			held = append(held, match{q: e.query, m: qm, idx: i - e.nDefs})
		}
	}
	between()
	for _, m := range held {
		fact(m)
	}
}

// match is one query match.
type match struct {
	q   *query
	m   *sitter.QueryMatch
	idx int
}

// get returns the node captured as name, or nil.
func (m match) get(name string) *sitter.Node {
	for _, c := range m.m.Captures {
		if m.q.names[c.Index] == name {
			return c.Node
		}
	}
	return nil
}

// pattern is the index of the matched pattern in its (defs or facts) list.
func (m match) pattern() int { return m.idx }

// countErrors counts ERROR and MISSING nodes, descending only into subtrees
// that hold an error so that a clean tree costs nothing.
func countErrors(root *sitter.Node) int {
	if root == nil || !root.HasError() {
		return 0
	}
	c := sitter.NewTreeCursor(root)
	defer c.Close()
	n := 0
	for {
		node := c.CurrentNode()
		if node.IsError() || node.IsMissing() {
			n++
		}
		if node.HasError() && c.GoToFirstChild() {
			continue
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				return n
			}
		}
	}
}

// lazyGrammar builds a grammar once per process; languages are static C data.
func lazyGrammar(get func() *sitter.Language) func() *grammar {
	return sync.OnceValue(func() *grammar { return newGrammar(get()) })
}

// extract runs one language's passes over a parsed file. The tree is closed
// before it returns; a panic in a pass becomes an error so that one odd file
// cannot stop a batch (the fuzz tests make sure there are none).
func (e *engine) extract(path string, src []byte, passes func(f *file, root *sitter.Node)) (facts *FileFacts, err error) {
	src = bytes.TrimPrefix(src, utf8BOM)
	tree, err := e.parse(path, src)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	defer func() {
		if r := recover(); r != nil {
			facts, err = nil, fmt.Errorf("extract %s (%s): %w: %v", path, e.name, errInternal, r)
		}
	}()
	root := tree.RootNode()
	f := newFile(e.g, path, e.name, src)
	passes(f, root)
	return f.finish(root), nil
}

var (
	utf8BOM     = []byte{0xEF, 0xBB, 0xBF}
	errInternal = errors.New("internal error")
)
