package history

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// node is a commit to deliver.
type node struct {
	hash    plumbing.Hash
	parents []plumbing.Hash // as git log shows them: none at a shallow boundary
	tree    plumbing.Hash
	// committed is the committer time, read only for Options.Want.
	committed time.Time
}

// plan is the commits to deliver, parents before children.
type plan struct {
	nodes []node
	index map[plumbing.Hash]int // position in nodes
}

// treeOf returns the tree of commit h from the plan, or false if h is not
// in it (a known commit).
func (p *plan) treeOf(h plumbing.Hash) (plumbing.Hash, bool) {
	i, ok := p.index[h]
	if !ok {
		return plumbing.ZeroHash, false
	}
	return p.nodes[i].tree, true
}

// planWalk lists the commits reachable from head that are not known, in a
// topological order (a depth-first post-order, first parents first). It
// does not descend below known commits. With times set it reads each
// commit's committer time.
func planWalk(ctx context.Context, objs *objects, head plumbing.Hash, shallow map[plumbing.Hash]bool, known func(string) bool, times bool) (*plan, error) {
	p := &plan{index: map[plumbing.Hash]int{}}
	if known != nil && known(head.String()) {
		return p, nil
	}
	type frame struct {
		node
		next int // next parent to visit
	}
	seen := map[plumbing.Hash]bool{head: true}
	var buf []byte
	read := func(h plumbing.Hash) (frame, error) {
		obj, err := objs.object(plumbing.CommitObject, h)
		if err != nil {
			return frame{}, err
		}
		if buf, err = readAll(obj, buf); err != nil {
			return frame{}, err
		}
		c, err := parseCommit(buf)
		if err != nil {
			return frame{}, fmt.Errorf("commit %s: %w", h, err)
		}
		f := frame{node: node{hash: h, parents: c.parents, tree: c.tree}}
		if times {
			_, f.committed = ident(c.committer)
		}
		if shallow[h] {
			f.parents = nil
		}
		return f, nil
	}
	top, err := read(head)
	if err != nil {
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return nil, fmt.Errorf("head %s is not a commit in this repository: %w", head, err)
		}
		return nil, fmt.Errorf("head %s: %w", head, err)
	}
	stack := []frame{top}
	for steps := 0; len(stack) > 0; steps++ {
		if steps%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		f := &stack[len(stack)-1]
		if f.next == len(f.parents) {
			p.index[f.hash] = len(p.nodes)
			p.nodes = append(p.nodes, f.node)
			stack = stack[:len(stack)-1]
			continue
		}
		parent := f.parents[f.next]
		f.next++
		if seen[parent] {
			continue
		}
		seen[parent] = true
		if known != nil && known(parent.String()) {
			continue
		}
		pf, err := read(parent)
		if err != nil {
			return nil, fmt.Errorf("commit %s: parent %w", f.hash, err)
		}
		stack = append(stack, pf)
	}
	return p, nil
}
