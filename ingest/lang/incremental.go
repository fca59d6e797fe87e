package lang

// Incremental parsing: a file's next version is parsed from the tree of an
// earlier one, edited to the change between them, so tree-sitter re-parses
// the changed region and reuses the rest. Replaying history parses one
// file in many versions that differ by a few lines; parsed from scratch,
// each costs the whole file.
//
// The facts must be those of a parse from scratch, byte for byte. Only a
// tree without an error is kept as a base, and a result with an error is
// parsed again from scratch: error recovery is where an incremental parse
// may take another path.

/*
#include <stdbool.h>
#include <stdint.h>

typedef struct TSTree TSTree;
typedef struct { uint32_t row, column; } TSPoint;
typedef struct {
	uint32_t start_byte, old_end_byte, new_end_byte;
	TSPoint start_point, old_end_point, new_end_point;
} TSInputEdit;

TSTree *ts_tree_copy(const TSTree *);
void ts_tree_delete(TSTree *);
void ts_tree_edit(TSTree *, const TSInputEdit *);

static void edit_tree(TSTree *t, uint32_t start, uint32_t old_end, uint32_t new_end,
		uint32_t sr, uint32_t sc, uint32_t oer, uint32_t oec, uint32_t ner, uint32_t nec) {
	TSInputEdit e = {start, old_end, new_end, {sr, sc}, {oer, oec}, {ner, nec}};
	ts_tree_edit(t, &e);
}
*/
import "C"

import (
	"bytes"
	"sync"
	"unsafe"

	"github.com/cra-dev/cra/internal/linediff"
)

// Tree is a parsed version of a file, kept as the base of the next
// version's parse (ExtractFrom, ExtractStructure). It is safe for
// concurrent use: each parse from it works on a copy. Close frees it;
// parses already started from it are not affected.
type Tree struct {
	mu       sync.Mutex
	c        *C.TSTree // nil for a tree of parts
	language string
	src      []byte // the source it was parsed from, without a BOM
	// parts are the chunks of a version ExtractStructure extracted chunk
	// by chunk (regions.go), with their facts: such a tree has no C tree.
	parts []part
}

// treeBytesPerSourceByte is about what tree-sitter's nodes take in C
// memory per byte of the source they were parsed from (tens of bytes).
const treeBytesPerSourceByte = 32

// Size is about the memory the tree holds, in bytes.
func (t *Tree) Size() int {
	if t.parts == nil {
		return len(t.src) * treeBytesPerSourceByte
	}
	n := len(t.src)
	for _, p := range t.parts {
		n += int(unsafe.Sizeof(p))
		if p.facts != nil {
			n += int(p.facts.size)
		}
	}
	return n
}

// Close frees the tree.
func (t *Tree) Close() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.c != nil {
		C.ts_tree_delete(t.c)
		t.c = nil
	}
}

// maxParseEdits bounds the line diff between a base and the source parsed
// from it: past it, the middle is one edit (and about re-parsed whole).
const maxParseEdits = 256

// editedCopy is a copy of t's tree edited to turn t.src into src, one
// edit per hunk of their line diff, nil when t is closed.
func (t *Tree) editedCopy(src []byte) *C.TSTree {
	t.mu.Lock()
	if t.c == nil {
		t.mu.Unlock()
		return nil
	}
	c := C.ts_tree_copy(t.c)
	t.mu.Unlock()
	old := t.src
	oldAt, newAt := linediff.LineStarts(old), linediff.LineStarts(src)
	hunks := linediff.HunksWithin(old, src, maxParseEdits)
	// From the last hunk back: what comes before a hunk is still the old
	// source when it is applied, so its old positions hold.
	for i := len(hunks) - 1; i >= 0; i-- {
		h := hunks[i]
		os, cs := h.ParentStart-1, h.ChildStart-1
		if h.ParentLines == 0 {
			os++ // an insertion after line ParentStart
		}
		if h.ChildLines == 0 {
			cs++
		}
		oe, ce := os+h.ParentLines, cs+h.ChildLines
		sr, sc := lineEnd(oldAt, old, os)
		oer, oec := lineEnd(oldAt, old, oe)
		ner, nec := lineEnd(newAt, src, ce)
		ner += sr - cs // the new text's rows start where the hunk does
		C.edit_tree(c, C.uint32_t(oldAt[os]), C.uint32_t(oldAt[oe]), C.uint32_t(oldAt[os]+newAt[ce]-newAt[cs]),
			C.uint32_t(sr), C.uint32_t(sc), C.uint32_t(oer), C.uint32_t(oec), C.uint32_t(ner), C.uint32_t(nec))
	}
	return c
}

// lineEnd is the row and byte column, as tree-sitter counts them, of the
// start of line i of src (at are its linediff.LineStarts), or of src's end when i
// is past its last line.
func lineEnd(at []int, src []byte, i int) (row, col int) {
	if i == len(at)-1 && len(src) > 0 && src[len(src)-1] != '\n' {
		return i - 1, at[i] - at[i-1] // the end of a last line without '\n'
	}
	return i, 0
}

// incremental is implemented by the extractors of this package.
type incremental interface{ engine() *engine }

// ExtractFrom is x.Extract(path, src) parsing from base, a tree of another
// version of the file (nil: from scratch), when x is one of this package's
// extractors. Its facts are Extract's. It also returns the tree of src, to
// be the base of a later version, or nil when there is none to keep (a
// parse with errors, an extractor of another kind); the caller closes it.
func ExtractFrom(x Extractor, path string, src []byte, base *Tree) (*FileFacts, *Tree, error) {
	in, ok := x.(incremental)
	if !ok {
		ff, err := x.Extract(path, src)
		return ff, nil, err
	}
	e := in.engine()
	return e.from(base, func() (*FileFacts, error) { return x.Extract(path, src) })
}

// from runs extract parsing from base (when of e's language) and keeping
// the tree parsed, which it returns with extract's facts.
func (e *engine) from(base *Tree, extract func() (*FileFacts, error)) (*FileFacts, *Tree, error) {
	if base != nil && base.language == e.name {
		e.base = base
	}
	e.keep = true
	defer func() { e.base, e.keep, e.kept = nil, false, nil }()
	ff, err := extract()
	return ff, e.kept, err
}

// parseTree parses src into e.tree, from e.base when set, and keeps the
// tree in e.kept when asked: what engine.parse does once it has checked
// its input. take chooses the children of the root copied out (see
// flatTree.parse). nil when the parse ran out of time.
func (e *engine) parseTree(src []byte, take []uint8) *node {
	var root *node
	if e.base != nil {
		if old := e.base.editedCopy(src); old != nil {
			root = e.tree.parse(e.parser, e.g, src, old, take)
			C.ts_tree_delete(old)
			if root != nil && root.HasError() {
				e.tree.close() // parsed again from scratch, as the file comment says
				root = nil
			} else if root != nil {
				e.fromBase++
			}
		}
	}
	if root == nil {
		root = e.tree.parse(e.parser, e.g, src, nil, take)
	}
	if root != nil && e.keep && !root.HasError() {
		e.kept = newTree(e.tree.tree, e.name, src)
	}
	return root
}

// newTree keeps a copy of the tree just parsed from src.
func newTree(c *C.TSTree, language string, src []byte) *Tree {
	return &Tree{c: C.ts_tree_copy(c), language: language, src: bytes.Clone(src)}
}
