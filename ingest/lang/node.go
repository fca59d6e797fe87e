package lang

// node is one visible syntax node of a flattened tree (see flatten.go). It
// answers what the extractors ask of a tree-sitter node from Go memory.
//
// The answers are go-tree-sitter's, as the extractors were written against
// it. The tree comes from a tree cursor, and tree-sitter's node API disagrees
// with its own cursor in a few corners: the field name of a comment or ERROR
// child (the node API gives it the field of the child before), the parent
// and previous sibling of a zero-width node (the node API searches by byte
// range and can land in a neighbour), the fields of an ERROR node, and named
// children found inside anonymous nodes (see build). There, and only there,
// node asks the node API. flatten_test.go compares every node with
// go-tree-sitter; the one difference left is a field tree-sitter finds
// through a hidden rule aliased to a visible node (Python's
// match_statement "alternative"), which no extractor asks for.
type node struct {
	t                  *flatTree
	idx                int32 // index in t.nodes and t.flat
	pos                int32 // index in up.kids
	start, end         uint32
	startRow, startCol uint32
	endRow, endCol     uint32
	sym                uint16 // tree-sitter symbol
	flags              uint8  // flatNamed, flatMissing...
	typ                string // node type ("ERROR" for errors)
	field              string // field name in the parent, as the tree cursor sees it
	up                 *node  // parent, as the tree cursor sees it
	kids, namedKids    []*node
}

func (n *node) StartByte() uint32 { return n.start }
func (n *node) EndByte() uint32   { return n.end }

// point is a zero-based row and byte column.
type point struct{ Row, Column uint32 }

func (n *node) StartPoint() point { return point{n.startRow, n.startCol} }
func (n *node) EndPoint() point   { return point{n.endRow, n.endCol} }

func (n *node) IsNamed() bool        { return n.flags&flatNamed != 0 }
func (n *node) IsMissing() bool      { return n.flags&flatMissing != 0 }
func (n *node) IsExtra() bool        { return n.flags&flatExtra != 0 }
func (n *node) HasError() bool       { return n.flags&flatHasError != 0 }
func (n *node) IsError() bool        { return n.typ == "ERROR" }
func (n *node) ChildCount() int      { return len(n.kids) }
func (n *node) NamedChildCount() int { return len(n.namedKids) }

// Parent returns n's parent.
func (n *node) Parent() *node {
	if n.start == n.end && n.up != nil {
		return n.t.sitterParent(n)
	}
	return n.up
}

// PrevSibling returns the child of n's parent before n, named or not.
func (n *node) PrevSibling() *node {
	if n.start == n.end && n.up != nil {
		return n.t.sitterPrevSibling(n)
	}
	if n.up == nil || n.pos == 0 {
		return nil
	}
	return n.up.kids[n.pos-1]
}

// Child returns the i-th child, or nil.
func (n *node) Child(i int) *node {
	if i < 0 || i >= len(n.kids) {
		return nil
	}
	return n.kids[i]
}

// NamedChild returns the i-th named child, or nil.
func (n *node) NamedChild(i int) *node {
	if i < 0 || i >= len(n.namedKids) {
		return nil
	}
	return n.namedKids[i]
}

// FieldNameForChild returns the field name of n's i-th child.
func (n *node) FieldNameForChild(i int) string {
	c := n.Child(i)
	if c == nil {
		return ""
	}
	if c.IsExtra() || c.IsError() {
		return n.t.sitterFieldNameForChild(n, i)
	}
	return c.field
}

// child returns n's child in field, nil-safe.
func child(n *node, field string) *node {
	if n == nil {
		return nil
	}
	if n.IsError() {
		return n.t.sitterChild(n, field)
	}
	for _, c := range n.kids {
		if c.field == field {
			return c
		}
	}
	return nil
}

// namedChildren returns n's named children. The slice is shared: callers
// must not modify it (its capacity is capped, so appending copies).
func namedChildren(n *node) []*node {
	if n == nil {
		return nil
	}
	return n.namedKids[:len(n.namedKids):len(n.namedKids)]
}

// typeOf returns a node's type, "" for nil.
func typeOf(n *node) string {
	if n == nil {
		return ""
	}
	return n.typ
}

func line(n *node) int { return int(n.startRow) + 1 }

// endLine is the 1-based last line of n; a node ending right after a newline
// ends on the line before.
func endLine(n *node) int {
	if n.endCol == 0 && n.endRow > n.startRow {
		return int(n.endRow)
	}
	return int(n.endRow) + 1
}
