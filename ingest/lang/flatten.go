package lang

// Extraction reads a tree in Go, node by node. Through go-tree-sitter every
// node access is a cgo call (plus a *sitter.Node cached in a map), which
// cost more than parsing; a tree-sitter query cursor walking the tree cost
// nearly as much again. So the tree is copied out once, by the same C call
// that parses the file, walking it with a tree cursor, into plain Go structs
// (node.go), and the query patterns are matched in Go over them
// (pattern.go). The parser is driven from here too: go-tree-sitter's
// ParseCtx copies the source into C memory and wraps the tree in Go objects
// with a finalizer, none of which a parse-copy-delete cycle needs.

/*
#include <stdbool.h>
#include <stdint.h>

// The few declarations of tree-sitter's C API (api.h of the version that
// github.com/smacker/go-tree-sitter vendors) this file needs; the functions
// are linked from that module's C code.
typedef struct TSParser TSParser;
typedef struct TSTree TSTree;
typedef struct TSLanguage TSLanguage;
typedef struct { uint32_t row, column; } TSPoint;
typedef struct { uint32_t context[4]; const void *id; const void *tree; } TSNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } TSTreeCursor;

TSParser *ts_parser_new(void);
void ts_parser_delete(TSParser *);
bool ts_parser_set_language(TSParser *, const TSLanguage *);
void ts_parser_set_timeout_micros(TSParser *, uint64_t);
void ts_parser_reset(TSParser *);
TSTree *ts_parser_parse_string(TSParser *, const TSTree *, const char *, uint32_t);
TSNode ts_tree_root_node(const TSTree *);
void ts_tree_delete(TSTree *);
uint32_t ts_language_symbol_count(const TSLanguage *);
TSTreeCursor ts_tree_cursor_new(TSNode);
void ts_tree_cursor_delete(TSTreeCursor *);
TSNode ts_tree_cursor_current_node(const TSTreeCursor *);
uint16_t ts_tree_cursor_current_field_id(const TSTreeCursor *);
bool ts_tree_cursor_goto_first_child(TSTreeCursor *);
bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *);
bool ts_tree_cursor_goto_parent(TSTreeCursor *);
uint16_t ts_node_symbol(TSNode);
uint32_t ts_node_start_byte(TSNode);
uint32_t ts_node_end_byte(TSNode);
TSPoint ts_node_start_point(TSNode);
TSPoint ts_node_end_point(TSNode);
bool ts_node_is_named(TSNode);
bool ts_node_is_missing(TSNode);
bool ts_node_is_extra(TSNode);
bool ts_node_has_error(TSNode);
TSNode ts_node_parent(TSNode);
TSNode ts_node_prev_sibling(TSNode);
TSNode ts_node_named_child(TSNode, uint32_t);
TSNode ts_node_child_by_field_name(TSNode, const char *, uint32_t);
const char *ts_node_field_name_for_child(TSNode, uint32_t);

enum { FLAT_NAMED = 1, FLAT_MISSING = 2, FLAT_EXTRA = 4, FLAT_HAS_ERROR = 8 };

// flat_node is one visible node. It keeps the TSNode's context and id as
// integers, so that Go sees no pointers in it (cgo would check every one
// each call), and the tree pointer is the same for all nodes.
// Keep in step with flatNode in Go.
typedef struct {
	uint32_t context[4];
	uintptr_t id;
	uint32_t start_byte, end_byte;
	uint32_t start_row, start_col, end_row, end_col;
	int32_t parent;
	uint16_t symbol, field;
	uint32_t flags;
} flat_node;

// flatten writes the visible nodes of the tree under root in pre-order to
// out, up to cap of them, and returns how many there are. With take, only
// the subtrees of root's children i with take[i] set are written (root's
// visible children, in order, as top_children lists them; those past
// ntake are not).
static uint32_t flatten(TSNode root, const uint8_t *take, uint32_t ntake, flat_node *out, uint32_t cap) {
	TSTreeCursor c = ts_tree_cursor_new(root);
	uint32_t n = 0, depth = 0, top = 0;
	int32_t parent = -1, cur = -1;
	for (;;) {
		if (take && depth == 1 && (top >= ntake || !take[top])) {
			goto next; // a child of root not taken: skipped whole
		}
		if (n < cap) {
			TSNode node = ts_tree_cursor_current_node(&c);
			TSPoint s = ts_node_start_point(node), e = ts_node_end_point(node);
			flat_node *f = &out[n];
			for (int i = 0; i < 4; i++) f->context[i] = node.context[i];
			f->id = (uintptr_t)node.id;
			f->start_byte = ts_node_start_byte(node);
			f->end_byte = ts_node_end_byte(node);
			f->start_row = s.row;
			f->start_col = s.column;
			f->end_row = e.row;
			f->end_col = e.column;
			f->parent = parent;
			f->symbol = ts_node_symbol(node);
			f->field = ts_tree_cursor_current_field_id(&c);
			f->flags = (ts_node_is_named(node) ? FLAT_NAMED : 0) |
				(ts_node_is_missing(node) ? FLAT_MISSING : 0) |
				(ts_node_is_extra(node) ? FLAT_EXTRA : 0) |
				(ts_node_has_error(node) ? FLAT_HAS_ERROR : 0);
		}
		cur = (int32_t)n++;
		if (ts_tree_cursor_goto_first_child(&c)) {
			parent = cur;
			depth++;
			continue;
		}
	next:
		while (!ts_tree_cursor_goto_next_sibling(&c)) {
			if (!ts_tree_cursor_goto_parent(&c)) {
				ts_tree_cursor_delete(&c);
				return n;
			}
			depth--;
			// Past cap nothing is written and parents no longer matter.
			cur = parent;
			parent = (cur >= 0 && (uint32_t)cur < cap) ? out[cur].parent : -1;
		}
		if (depth == 1) {
			top++;
		}
	}
}

// parsed is the result of parse_flatten: the tree, NULL when the parse
// timed out, and the number of its visible nodes.
typedef struct {
	TSTree *tree;
	uint32_t n;
} parsed;

// parse_flatten parses src, from old when not NULL (a tree edited to src),
// and flattens the tree into out (see flatten). The caller deletes the tree.
static parsed parse_flatten(TSParser *p, const TSTree *old, const char *src, uint32_t len,
		const uint8_t *take, uint32_t ntake, flat_node *out, uint32_t cap) {
	parsed r = {ts_parser_parse_string(p, old, src, len), 0};
	if (r.tree) {
		r.n = flatten(ts_tree_root_node(r.tree), take, ntake, out, cap);
	}
	return r;
}

static uint32_t flatten_tree(TSTree *tree, const uint8_t *take, uint32_t ntake, flat_node *out, uint32_t cap) {
	return flatten(ts_tree_root_node(tree), take, ntake, out, cap);
}

// top_node is one visible child of a tree's root. Keep in step with
// topNode in Go.
typedef struct {
	uint32_t start_byte, end_byte, start_row, end_row;
	uint8_t named, extra;
} top_node;

// top_children writes the visible children of tree's root to out, up to
// cap of them, and returns how many there are.
static uint32_t top_children(TSTree *tree, top_node *out, uint32_t cap) {
	TSTreeCursor c = ts_tree_cursor_new(ts_tree_root_node(tree));
	uint32_t n = 0;
	if (ts_tree_cursor_goto_first_child(&c)) {
		do {
			if (n < cap) {
				TSNode node = ts_tree_cursor_current_node(&c);
				top_node *t = &out[n];
				t->start_byte = ts_node_start_byte(node);
				t->end_byte = ts_node_end_byte(node);
				t->start_row = ts_node_start_point(node).row;
				t->end_row = ts_node_end_point(node).row;
				t->named = ts_node_is_named(node);
				t->extra = ts_node_is_extra(node);
			}
			n++;
		} while (ts_tree_cursor_goto_next_sibling(&c));
	}
	ts_tree_cursor_delete(&c);
	return n;
}

static TSNode to_node(flat_node f, const TSTree *tree) {
	TSNode n = {{f.context[0], f.context[1], f.context[2], f.context[3]}, (const void *)f.id, tree};
	return n;
}

// The node API calls behind node.go's exact fallbacks; nodes are returned
// by id.
static uintptr_t flat_parent(flat_node f, const TSTree *tree) {
	return (uintptr_t)ts_node_parent(to_node(f, tree)).id;
}
static uintptr_t flat_prev_sibling(flat_node f, const TSTree *tree) {
	return (uintptr_t)ts_node_prev_sibling(to_node(f, tree)).id;
}
static uintptr_t flat_child_by_field_name(flat_node f, const TSTree *tree, const char *name, uint32_t len) {
	return (uintptr_t)ts_node_child_by_field_name(to_node(f, tree), name, len).id;
}
static const char *flat_field_name_for_child(flat_node f, const TSTree *tree, uint32_t i) {
	return ts_node_field_name_for_child(to_node(f, tree), i);
}
static void flat_named_children(flat_node f, const TSTree *tree, uintptr_t *out, uint32_t n) {
	TSNode node = to_node(f, tree);
	for (uint32_t i = 0; i < n; i++) out[i] = (uintptr_t)ts_node_named_child(node, i).id;
}
*/
import "C"

import (
	"errors"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// flatNode mirrors the C flat_node.
type flatNode struct {
	context            [4]uint32
	id                 uintptr
	startByte, endByte uint32
	startRow, startCol uint32
	endRow, endCol     uint32
	parent             int32
	symbol, field      uint16
	flags              uint32
}

const (
	flatNamed    = C.FLAT_NAMED
	flatMissing  = C.FLAT_MISSING
	flatExtra    = C.FLAT_EXTRA
	flatHasError = C.FLAT_HAS_ERROR
)

func init() {
	// The copy relies on these layouts; fail loudly if a new binding or
	// header changes them.
	if unsafe.Sizeof(flatNode{}) != C.sizeof_flat_node {
		panic("lang: flatNode does not match flat_node")
	}
	if unsafe.Sizeof(topNode{}) != C.sizeof_top_node {
		panic("lang: topNode does not match top_node")
	}
}

// cLanguage returns the TSLanguage behind a go-tree-sitter Language, whose
// struct is {ptr unsafe.Pointer}. It panics if that no longer holds.
func cLanguage(l *sitter.Language) unsafe.Pointer {
	if unsafe.Sizeof(*l) != unsafe.Sizeof(uintptr(0)) {
		panic("lang: sitter.Language is no longer {ptr}")
	}
	c := *(*unsafe.Pointer)(unsafe.Pointer(l))
	if c == nil || uint32(C.ts_language_symbol_count((*C.TSLanguage)(c))) != l.SymbolCount() {
		panic("lang: sitter.Language is no longer {ptr}")
	}
	return c
}

// parser is a tree-sitter parser for one grammar, with a time limit.
type parser struct{ c *C.TSParser }

func newParser(g *grammar) (parser, error) {
	p := parser{C.ts_parser_new()}
	if !C.ts_parser_set_language(p.c, (*C.TSLanguage)(g.c)) {
		p.close()
		return p, errors.New("grammar built for another tree-sitter version")
	}
	C.ts_parser_set_timeout_micros(p.c, parseTimeoutMicros)
	return p, nil
}

func (p *parser) close() {
	if p.c != nil {
		C.ts_parser_delete(p.c)
		p.c = nil
	}
}

// flatTree is a flattened tree. Its buffers are reused from file to file by
// one extractor; the nodes are valid until the next flatten, and the
// tree-sitter tree they came from must stay open as long as they are used
// (the exact fallbacks in node.go call into it).
type flatTree struct {
	g         *grammar
	tree      *C.TSTree // the tree the nodes belong to, deleted by close
	flat      []flatNode
	nodes     []node
	counts    []int32
	kids      []*node
	namedKids []*node
	byID      map[uintptr]*node // built on first use by find
}

// maxKeptNodes bounds the buffers an extractor keeps between files: one
// huge file should not pin its nodes for the rest of a run.
const maxKeptNodes = 1 << 16

// parse parses src with p, from old when not nil (a tree edited to src),
// copies the tree into t and returns the copy of its root, or nil if the
// parse ran out of time. take chooses the children of the root whose
// subtrees are copied (see flatten): nil all of them, an empty slice none.
// The tree stays open until close. src is read in place: tree-sitter
// keeps no reference to it.
func (t *flatTree) parse(p parser, g *grammar, src []byte, old *C.TSTree, take []uint8) *node {
	if cap(t.flat) == 0 {
		t.flat = make([]flatNode, len(src)/2+64) // about what source code needs
	}
	t.flat = t.flat[:cap(t.flat)]
	r := C.parse_flatten(p.c, old, (*C.char)(unsafe.Pointer(unsafe.SliceData(src))), C.uint32_t(len(src)),
		takePtr(take), C.uint32_t(len(take)), (*C.flat_node)(unsafe.Pointer(&t.flat[0])), C.uint32_t(len(t.flat)))
	if r.tree == nil {
		C.ts_parser_reset(p.c)
		return nil
	}
	t.g, t.tree = g, r.tree
	return t.copied(int(r.n), take)
}

// flatten copies the tree parsed last again, with the children of the
// root that take chooses, and returns the copy of its root.
func (t *flatTree) flatten(take []uint8) *node {
	t.flat = t.flat[:cap(t.flat)]
	n := C.flatten_tree(t.tree, takePtr(take), C.uint32_t(len(take)), (*C.flat_node)(unsafe.Pointer(&t.flat[0])), C.uint32_t(len(t.flat)))
	return t.copied(int(n), take)
}

// copied builds the nodes of the n records flatten found, flattening the
// tree again into bigger buffers when they did not fit.
func (t *flatTree) copied(n int, take []uint8) *node {
	t.byID = nil
	if n > len(t.flat) {
		t.flat = make([]flatNode, n+n/4)
		n = int(C.flatten_tree(t.tree, takePtr(take), C.uint32_t(len(take)), (*C.flat_node)(unsafe.Pointer(&t.flat[0])), C.uint32_t(len(t.flat))))
	}
	t.flat = t.flat[:n]
	return t.build()
}

// takePtr is take as flatten reads it: NULL for nil (every child), a
// pointer for an empty take (no child).
func takePtr(take []uint8) *C.uint8_t {
	switch {
	case take == nil:
		return nil
	case len(take) == 0:
		return (*C.uint8_t)(unsafe.Pointer(&noChild))
	}
	return (*C.uint8_t)(unsafe.Pointer(&take[0]))
}

// noChild is what an empty take points to (flatten reads none of it).
var noChild uint8

// topNode mirrors the C top_node: a visible child of the root.
type topNode struct {
	startByte, endByte uint32
	startRow, endRow   uint32
	named, extra       uint8
}

// tops lists the visible children of the root of the tree parsed last,
// into buf.
func (t *flatTree) tops(buf []topNode) []topNode {
	buf = buf[:cap(buf)]
	n := int(C.top_children(t.tree, (*C.top_node)(unsafe.Pointer(unsafe.SliceData(buf))), C.uint32_t(len(buf))))
	if n > len(buf) {
		buf = make([]topNode, n)
		n = int(C.top_children(t.tree, (*C.top_node)(unsafe.Pointer(unsafe.SliceData(buf))), C.uint32_t(len(buf))))
	}
	return buf[:n]
}

// close deletes the tree and drops buffers grown past maxKeptNodes.
func (t *flatTree) close() {
	if t.tree != nil {
		C.ts_tree_delete(t.tree)
		t.tree = nil
	}
	if cap(t.flat) > maxKeptNodes {
		*t = flatTree{}
	}
}

// build turns the flat records into linked nodes. Pass one copies them and
// counts children; pass two (parents come before their children in
// pre-order) gives each node its slices of the shared children arrays and
// appends it to its parent's.
func (t *flatTree) build() *node {
	flat, g := t.flat, t.g
	n := len(flat)
	t.nodes = resize(t.nodes, n)
	t.counts = resize(t.counts, 2*n)
	nodes, nKids, nNamed := t.nodes, t.counts[:n], t.counts[n:]
	clear(t.counts)
	for i := range flat {
		f := &flat[i]
		nodes[i] = node{
			t:     t,
			idx:   int32(i),
			start: f.startByte, end: f.endByte,
			startRow: f.startRow, startCol: f.startCol,
			endRow: f.endRow, endCol: f.endCol,
			sym:   f.symbol,
			typ:   g.typeName(f.symbol),
			field: g.fieldName(f.field),
			flags: uint8(f.flags),
		}
		if p := f.parent; p >= 0 {
			nKids[p]++
			if f.flags&flatNamed != 0 {
				nNamed[p]++
			}
		}
	}
	t.kids = resize(t.kids, n)
	t.namedKids = resize(t.namedKids, n)
	kids, named := t.kids[:0], t.namedKids[:0]
	var odd []*node
	for i := range nodes {
		nd := &nodes[i]
		k, m := len(kids), len(named)
		kids, named = kids[:k+int(nKids[i])], named[:m+int(nNamed[i])]
		nd.kids, nd.namedKids = kids[k:k:len(kids)], named[m:m:len(named)]
		if p := flat[i].parent; p >= 0 {
			up := &nodes[p]
			nd.up, nd.pos = up, int32(len(up.kids))
			up.kids = append(up.kids, nd)
			if nd.IsNamed() {
				up.namedKids = append(up.namedKids, nd)
			} else if nNamed[i] > 0 {
				odd = append(odd, up)
			}
		}
	}
	// tree-sitter's NamedChild(i) also finds named nodes inside anonymous
	// children (error recovery can put an ERROR inside an aliased token
	// such as Python's "not in"), in an order that depends on hidden
	// nodes. The few parents of such children get their named children
	// from the node API.
	for i, p := range odd {
		if i == 0 || odd[i-1] != p {
			t.sitterNamedChildren(p)
		}
	}
	return &nodes[0]
}

// resize returns s with length n, reusing its array when it is big enough.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

// The exact fallbacks: where tree-sitter's node API disagrees with its
// tree cursor (see node.go), ask the node API itself.

// find returns the node with a tree-sitter node id, or nil.
func (t *flatTree) find(id C.uintptr_t) *node {
	if id == 0 {
		return nil
	}
	if t.byID == nil {
		t.byID = make(map[uintptr]*node, len(t.nodes))
		for i := range t.nodes {
			t.byID[t.flat[i].id] = &t.nodes[i]
		}
	}
	return t.byID[uintptr(id)]
}

// c returns n's record as the C type.
func (t *flatTree) c(n *node) C.flat_node {
	return *(*C.flat_node)(unsafe.Pointer(&t.flat[n.idx]))
}

func (t *flatTree) sitterParent(n *node) *node {
	return t.find(C.flat_parent(t.c(n), t.tree))
}

func (t *flatTree) sitterPrevSibling(n *node) *node {
	return t.find(C.flat_prev_sibling(t.c(n), t.tree))
}

func (t *flatTree) sitterChild(n *node, field string) *node {
	name := (*C.char)(unsafe.Pointer(unsafe.StringData(field)))
	return t.find(C.flat_child_by_field_name(t.c(n), t.tree, name, C.uint32_t(len(field))))
}

func (t *flatTree) sitterFieldNameForChild(n *node, i int) string {
	return C.GoString(C.flat_field_name_for_child(t.c(n), t.tree, C.uint32_t(i)))
}

// sitterNamedChildren replaces n's named children with the node API's.
func (t *flatTree) sitterNamedChildren(n *node) {
	ids := make([]C.uintptr_t, len(n.namedKids))
	if len(ids) == 0 {
		return
	}
	C.flat_named_children(t.c(n), t.tree, &ids[0], C.uint32_t(len(ids)))
	named := make([]*node, len(ids))
	for i, id := range ids {
		named[i] = t.find(id)
	}
	n.namedKids = named
}
