package lang

import (
	"fmt"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
)

// TestFlattenMatchesSitter checks every node of the flattened tree against
// the same node read through go-tree-sitter: what node.go answers must be
// what the binding would have.
func TestFlattenMatchesSitter(t *testing.T) {
	for language, srcs := range equivalenceSources(t) {
		e, _ := patternsOf(t, language)
		for i, src := range srcs {
			tree := sitterTree(t, e.g, src)
			root, err := e.parse("x", []byte(src), nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := sameNode(e.g, root, tree.RootNode(), nil); err != nil {
				t.Errorf("%s source %d: %v", language, i, err)
			}
			if want := countErrorsSitter(tree.RootNode()); countErrors(root) != want {
				t.Errorf("%s source %d: countErrors %d, want %d", language, i, countErrors(root), want)
			}
			tree.Close()
			e.tree.close()
		}
	}
}

// aliasedFields are fields tree-sitter's node API finds through a hidden
// rule aliased to a visible node, where the tree cursor (and so child) does
// not. The extractors never ask for them.
var aliasedFields = map[string]bool{"match_statement.alternative": true}

// same reports whether n and s are the same node (or both nil).
func same(n *node, s *sitter.Node) bool {
	if n == nil || s == nil {
		return n == nil && s == nil
	}
	return n.start == s.StartByte() && n.end == s.EndByte() && n.sym == uint16(s.Symbol())
}

func sameNode(g *grammar, n *node, s *sitter.Node, up *node) error {
	if n == nil || s == nil {
		if n != nil || s != nil {
			return fmt.Errorf("node %v vs %v", n, s)
		}
		return nil
	}
	where := fmt.Sprintf("%s@%d", s.Type(), s.StartByte())
	switch {
	case n.typ != s.Type() && !(s.IsError() && n.IsError()):
		return fmt.Errorf("%s: type %q", where, n.typ)
	case !same(n, s):
		return fmt.Errorf("%s: bytes %d-%d, want %d-%d", where, n.start, n.end, s.StartByte(), s.EndByte())
	case n.StartPoint() != point(s.StartPoint()) || n.EndPoint() != point(s.EndPoint()):
		return fmt.Errorf("%s: points", where)
	case n.IsNamed() != s.IsNamed() || n.IsMissing() != s.IsMissing() || n.IsExtra() != s.IsExtra() ||
		n.HasError() != s.HasError() || n.IsError() != s.IsError():
		return fmt.Errorf("%s: flags", where)
	case n.ChildCount() != int(s.ChildCount()) || n.NamedChildCount() != int(s.NamedChildCount()):
		return fmt.Errorf("%s: %d/%d children, want %d/%d", where, n.ChildCount(), n.NamedChildCount(), s.ChildCount(), s.NamedChildCount())
	case n.up != up:
		return fmt.Errorf("%s: cursor parent", where)
	case !same(n.Parent(), s.Parent()):
		return fmt.Errorf("%s: parent", where)
	case !same(n.PrevSibling(), s.PrevSibling()):
		return fmt.Errorf("%s: previous sibling", where)
	}
	for _, f := range g.fields[1:] {
		if !same(child(n, f), s.ChildByFieldName(f)) && !aliasedFields[n.typ+"."+f] {
			return fmt.Errorf("%s: field %s", where, f)
		}
	}
	for i := 0; i < int(s.ChildCount()); i++ {
		if got, want := n.FieldNameForChild(i), s.FieldNameForChild(i); got != want {
			return fmt.Errorf("%s: field of child %d is %q, want %q", where, i, got, want)
		}
		if err := sameNode(g, n.Child(i), s.Child(i), n); err != nil {
			return err
		}
	}
	for i := 0; i < int(s.NamedChildCount()); i++ {
		if c, sc := n.NamedChild(i), s.NamedChild(i); !same(c, sc) {
			var b strings.Builder
			var dump func(x *node, d int)
			dump = func(x *node, d int) {
				fmt.Fprintf(&b, "\n%*s%s named=%v extra=%v %d-%d nk=%d", 2*d, "", x.typ, x.IsNamed(), x.IsExtra(), x.start, x.end, len(x.namedKids))
				for _, k := range x.kids {
					dump(k, d+1)
				}
			}
			dump(n, 0)
			for j := 0; j < int(s.NamedChildCount()); j++ {
				fmt.Fprintf(&b, "\nsitter %d: %s %d-%d", j, s.NamedChild(j).Type(), s.NamedChild(j).StartByte(), s.NamedChild(j).EndByte())
			}
			return fmt.Errorf("%s: named child %d is %v, want %v%s", where, i, c, sc, b.String())
		}
	}
	return nil
}

// countErrorsSitter is countErrors as it was written against the binding.
func countErrorsSitter(root *sitter.Node) int {
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
