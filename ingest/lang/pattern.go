package lang

import (
	"fmt"
	"strings"
)

// The extractors' patterns are written in tree-sitter query syntax, but
// matched in Go over a flattened tree (see flatten.go) instead of by a
// tree-sitter query cursor. Only the subset the extractors need is
// supported, and pattern_test.go checks on real trees that it matches
// exactly what tree-sitter's own query engine matches, in the same order:
//
//   - a chain of nested nodes, each with one unfielded child, e.g.
//     (module (expression_statement (assignment) @a) @s);
//   - whose last node may have leaf children, with or without fields:
//     (call function: (_) @callee arguments: (argument_list) @args) @n;
//   - a node is (type), (_) (any named node but ERROR), "literal" (an
//     anonymous node) or [(a) (b)] (either); any node may be captured.
//
// As in tree-sitter, a match completes when the walk reaches its last
// node: the last leaf, or the last node of the chain. Matches completing on
// the same node come in order of their outermost node (outer first), then of
// pattern index.

// step is one node of a pattern.
type step struct {
	types   []string // alternatives; "_" is any named node but ERROR
	literal bool     // types[0] is an anonymous node's text
	field   string   // required field name in the parent, "" for any
	capture string
}

// pattern is one parsed pattern.
type pattern struct {
	chain  []step // outermost first
	leaves []step // children of the chain's last node, in order
	levels int    // depth of the outermost node above the completing one
}

// maxCaptures and maxLeaves bound a pattern, so a match needs no
// allocation.
const (
	maxCaptures = 4
	maxLeaves   = 4
)

// capture is one captured node.
type capture struct {
	name string
	node *node
}

// match is one pattern match.
type match struct {
	idx  int // index of the pattern in its (defs or facts) list
	caps [maxCaptures]capture
	n    int
}

// get returns the node captured as name, or nil.
func (m *match) get(name string) *node {
	for _, c := range m.caps[:m.n] {
		if c.name == name {
			return c.node
		}
	}
	return nil
}

// pattern is the index of the matched pattern in its (defs or facts) list.
func (m *match) pattern() int { return m.idx }

func (m *match) add(s *step, n *node) {
	if s.capture != "" {
		m.caps[m.n] = capture{s.capture, n}
		m.n++
	}
}

// matches reports whether n is a node s describes.
func (s *step) matches(n *node) bool {
	if n == nil || (s.field != "" && n.field != s.field) {
		return false
	}
	if s.literal {
		return !n.IsNamed() && n.typ == s.types[0]
	}
	if !n.IsNamed() {
		return false
	}
	for _, t := range s.types {
		if t == n.typ || (t == "_" && !n.IsError()) {
			return true
		}
	}
	return false
}

// try matches p with its last node at n, appending the match to out.
func (p *pattern) try(n *node, idx int, out []match) []match {
	last, nl := n, len(p.leaves) // last: the chain's last node
	if nl > 0 {
		if last = n.up; last == nil || !p.leaves[nl-1].matches(n) {
			return out
		}
	}
	a := last
	for i := len(p.chain) - 1; i >= 0; i-- {
		if !p.chain[i].matches(a) {
			return out
		}
		a = a.up
	}
	m := match{idx: idx}
	if nl > 1 {
		// Earlier leaves match earlier siblings of n, in order.
		want, k := p.leaves[:nl-1], 0
		var at [maxLeaves]*node
		for _, c := range last.kids[:n.pos] {
			if k < len(want) && want[k].matches(c) {
				at[k] = c
				k++
			}
		}
		if k < len(want) {
			return out
		}
		for i := range want {
			m.add(&want[i], at[i])
		}
	}
	if nl > 0 {
		m.add(&p.leaves[nl-1], n)
	}
	a = last
	for i := len(p.chain) - 1; i >= 0; i-- {
		m.add(&p.chain[i], a)
		a = a.up
	}
	return append(out, m)
}

// patternSet is a compiled list of patterns, indexed by the symbol of the
// node a match can complete on, or of that node's parent, so that most nodes
// are passed over with two slice lookups.
type patternSet struct {
	pats     []pattern
	nDefs    int     // the first nDefs patterns find definitions
	byType   [][]int // chain-only patterns, by the chain's last node
	byParent [][]int // patterns with leaves, by the node they hang off
	any      []int   // patterns indexed by a wildcard
}

// compilePatterns parses defs and facts into one set for grammar g.
func compilePatterns(g *grammar, defs, facts []string) (*patternSet, error) {
	// Symbols by name: several symbols can share a name (aliases).
	syms := map[string][]int{}
	for i, t := range g.types {
		syms[t] = append(syms[t], i)
	}
	ps := &patternSet{
		nDefs:    len(defs),
		byType:   make([][]int, len(g.types)+1), // the last is ERROR's
		byParent: make([][]int, len(g.types)+1),
	}
	for i, src := range append(append([]string(nil), defs...), facts...) {
		p, err := parsePattern(src)
		if err != nil {
			return nil, fmt.Errorf("pattern %d %q: %w", i, src, err)
		}
		ps.pats = append(ps.pats, p)
		index, key := ps.byType, p.chain[len(p.chain)-1]
		if len(p.leaves) > 0 {
			index = ps.byParent
		}
		for _, t := range key.types {
			if t == "_" {
				ps.any = append(ps.any, i)
				continue
			}
			if len(syms[t]) == 0 {
				return nil, fmt.Errorf("pattern %d %q: no node type %q", i, src, t)
			}
			for _, s := range syms[t] {
				index[s] = append(index[s], i)
			}
		}
	}
	return ps, nil
}

// slot is the index of n's symbol in byType and byParent.
func (ps *patternSet) slot(n *node) int {
	return min(int(n.sym), len(ps.byType)-1)
}

// matchesAt appends the matches completing at n to out, in tree-sitter's
// order.
func (ps *patternSet) matchesAt(n *node, out []match) []match {
	start := len(out)
	for _, i := range ps.byType[ps.slot(n)] {
		out = ps.pats[i].try(n, i, out)
	}
	if n.up != nil {
		for _, i := range ps.byParent[ps.slot(n.up)] {
			out = ps.pats[i].try(n, i, out)
		}
	}
	for _, i := range ps.any {
		out = ps.pats[i].try(n, i, out)
	}
	// Outer patterns first, then by pattern index; few matches complete
	// on one node, so an insertion sort does.
	ms := out[start:]
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && ps.before(&ms[j], &ms[j-1]); j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
	return out
}

func (ps *patternSet) before(a, b *match) bool {
	la, lb := ps.pats[a.idx].levels, ps.pats[b.idx].levels
	if la != lb {
		return la > lb
	}
	return a.idx < b.idx
}

// parsePattern parses one pattern of the supported subset.
func parsePattern(src string) (pattern, error) {
	p := &patternParser{s: src}
	root, err := p.node()
	if err != nil {
		return pattern{}, err
	}
	if p.skipSpace(); p.i < len(p.s) {
		return pattern{}, fmt.Errorf("trailing text at %d", p.i)
	}
	var pat pattern
	for n := root; ; {
		pat.chain = append(pat.chain, n.step)
		if len(n.kids) == 1 && len(n.kids[0].kids) > 0 && n.kids[0].field == "" {
			n = n.kids[0]
			continue
		}
		for _, k := range n.kids {
			if len(k.kids) > 0 {
				return pattern{}, fmt.Errorf("unsupported shape: leaves with children")
			}
			pat.leaves = append(pat.leaves, k.step)
		}
		break
	}
	pat.levels = len(pat.chain) - 1
	if len(pat.leaves) > 0 {
		pat.levels++
	}
	caps := 0
	for _, s := range append(append([]step(nil), pat.chain...), pat.leaves...) {
		if s.capture != "" {
			caps++
		}
	}
	if caps > maxCaptures || len(pat.leaves) > maxLeaves {
		return pattern{}, fmt.Errorf("more than %d captures or %d leaves", maxCaptures, maxLeaves)
	}
	return pat, nil
}

// pnode is a parsed pattern node before it is split into chain and leaves.
type pnode struct {
	step
	kids []*pnode
}

type patternParser struct {
	s string
	i int
}

func (p *patternParser) skipSpace() {
	for p.i < len(p.s) && strings.IndexByte(" \t\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *patternParser) peek() byte {
	p.skipSpace()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *patternParser) word() string {
	p.skipSpace()
	j := p.i
	for p.i < len(p.s) && (strings.IndexByte("_.-", p.s[p.i]) >= 0 ||
		'a' <= p.s[p.i] && p.s[p.i] <= 'z' || 'A' <= p.s[p.i] && p.s[p.i] <= 'Z' || '0' <= p.s[p.i] && p.s[p.i] <= '9') {
		p.i++
	}
	return p.s[j:p.i]
}

// node parses `field: node @capture`, field and capture optional.
func (p *patternParser) node() (*pnode, error) {
	field := ""
	if c := p.peek(); c != '(' && c != '[' && c != '"' {
		field = p.word()
		if field == "" || p.peek() != ':' {
			return nil, fmt.Errorf("expected a node at %d", p.i)
		}
		p.i++
	}
	var n *pnode
	switch p.peek() {
	case '(':
		p.i++
		n = &pnode{step: step{types: []string{p.word()}}}
		if n.types[0] == "" {
			return nil, fmt.Errorf("expected a node type at %d", p.i)
		}
		for p.peek() != ')' {
			if p.peek() == 0 {
				return nil, fmt.Errorf("unclosed (")
			}
			k, err := p.node()
			if err != nil {
				return nil, err
			}
			n.kids = append(n.kids, k)
		}
		p.i++
	case '[':
		p.i++
		n = &pnode{}
		for p.peek() != ']' {
			if p.peek() != '(' {
				return nil, fmt.Errorf("unsupported alternative at %d", p.i)
			}
			k, err := p.node()
			if err != nil {
				return nil, err
			}
			if len(k.kids) > 0 || k.capture != "" || k.field != "" {
				return nil, fmt.Errorf("unsupported alternative at %d", p.i)
			}
			n.types = append(n.types, k.types...)
		}
		p.i++
	case '"':
		p.i++
		j := strings.IndexByte(p.s[p.i:], '"')
		if j < 0 {
			return nil, fmt.Errorf("unclosed string")
		}
		n = &pnode{step: step{types: []string{p.s[p.i : p.i+j]}, literal: true}}
		p.i += j + 1
	default:
		return nil, fmt.Errorf("expected a node at %d", p.i)
	}
	n.field = field
	if p.peek() == '@' {
		p.i++
		if n.capture = p.word(); n.capture == "" {
			return nil, fmt.Errorf("empty capture name at %d", p.i)
		}
	}
	return n, nil
}
