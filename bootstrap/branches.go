package bootstrap

import (
	"container/heap"
	"context"
	"strings"
)

// commitGraph is a repository's commits as runs recorded or walked them,
// each with its parents: what `git rev-list --parents` reads, without a
// git process per merge. Commits whose ancestry leaves the graph (a run
// stopped by --max-commits, a shallow clone) have no generation, and a
// branch that reaches them is listed by git.
type commitGraph struct {
	parents map[string][]string
	gen     map[string]int // 1 + the largest generation of the parents; -1: unknown
	// root reports whether git sees a commit recorded without parents as
	// a root still: a shallow clone deepened since shows its parents.
	root  func(string) bool
	roots map[string]bool // root's answers
}

// commitGraph reads repo's recorded and walked commits.
func (s *rawStore) commitGraph(ctx context.Context, repo string) (*commitGraph, error) {
	rows, err := s.Conn.QueryContext(ctx, `SELECT commit, parents FROM bootstrap_commits WHERE repo_path = $1
		UNION ALL SELECT commit, parents FROM bootstrap_walked WHERE repo_path = $1`, repo)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	parents := map[string][]string{}
	for rows.Next() {
		var c string
		var ps []any // its parents
		if err := rows.Scan(&c, &ps); err != nil {
			return nil, err
		}
		ps2 := make([]string, 0, len(ps))
		for _, p := range ps {
			if h, ok := p.(string); ok {
				ps2 = append(ps2, h)
			}
		}
		parents[c] = ps2
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return graphOf(parents, gitRoot(ctx, repo)), nil
}

// runGraph is the graph of a run's commits: those recorded and walked
// before, and those its walk delivered (fresh).
func runGraph(ctx context.Context, repo string, known, walked map[string]knownCommit, fresh []commitInfo) *commitGraph {
	parents := make(map[string][]string, len(known)+len(walked)+len(fresh))
	for _, m := range []map[string]knownCommit{known, walked} {
		for h, k := range m {
			parents[h] = k.parents
		}
	}
	for _, cm := range fresh {
		parents[cm.Hash] = cm.Parents
	}
	return graphOf(parents, gitRoot(ctx, repo))
}

// gitRoot asks git whether a commit of repo is a root.
func gitRoot(ctx context.Context, repo string) func(string) bool {
	return func(c string) bool {
		line, err := gitOutput(ctx, repo, "rev-list", "--parents", "-n", "1", c)
		return err == nil && line == c
	}
}

// graphOf is the graph of commits with their parents; root tells whether
// a commit without parents is one for git.
func graphOf(parents map[string][]string, root func(string) bool) *commitGraph {
	g := &commitGraph{parents: parents, gen: make(map[string]int, len(parents)), root: root, roots: map[string]bool{}}
	for c := range parents {
		g.generation(c)
	}
	return g
}

// generation computes c's generation and its ancestors' (iteratively: a
// history is thousands of commits deep), -1 when one of them is not in
// the graph.
func (g *commitGraph) generation(c string) int {
	if n, ok := g.gen[c]; ok {
		return n
	}
	type frame struct {
		c    string
		next int
	}
	stack := []frame{{c: c}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		ps, known := g.parents[f.c]
		if !known {
			g.gen[f.c] = -1
			stack = stack[:len(stack)-1]
			continue
		}
		if f.next < len(ps) {
			p := ps[f.next]
			f.next++
			if _, done := g.gen[p]; !done {
				stack = append(stack, frame{c: p})
			}
			continue
		}
		n := 1
		for _, p := range ps {
			if pg := g.gen[p]; pg < 0 {
				n = -1
				break
			} else if n >= 0 {
				n = max(n, pg+1)
			}
		}
		g.gen[f.c] = n
		stack = stack[:len(stack)-1]
	}
	return g.gen[c]
}

// branch lists the commits reachable from tip and not from base as
// `git rev-list --reverse --topo-order --parents tip ^base` does for a
// branch that is a line ("commit parent" lines, oldest first; for other
// branches the same commits, in an order whose lines show it is no line),
// nil when there is none. ok is false when the graph cannot tell (a
// commit's ancestry leaves it).
func (g *commitGraph) branch(tip, base string) (lines []string, ok bool) {
	if g.gen[tip] <= 0 || g.gen[base] <= 0 {
		return nil, false
	}
	// Paint down from both, youngest generation first: a commit's flags
	// are final once it is popped (its descendants all came before), and
	// once every commit queued is reachable from base, so are all the
	// commits below them.
	const fromTip, fromBase = 1, 2
	flags := map[string]uint8{tip: fromTip}
	flags[base] |= fromBase
	q := &genQueue{g: g}
	heap.Push(q, tip)
	if base != tip {
		heap.Push(q, base)
	}
	var found []string
	for q.Len() > 0 && q.tipOnly(flags) {
		c := heap.Pop(q).(string)
		f := flags[c]
		if len(g.parents[c]) == 0 && !g.isRoot(c) {
			return nil, false
		}
		if f == fromTip {
			found = append(found, c)
		}
		for _, p := range g.parents[c] {
			if g.gen[p] <= 0 {
				return nil, false
			}
			if old, seen := flags[p]; !seen || old|f != old {
				flags[p] = old | f
				if !seen {
					heap.Push(q, p)
				}
			}
		}
	}
	// found is youngest first; a line's order is unique.
	for i := len(found) - 1; i >= 0; i-- {
		lines = append(lines, strings.Join(append([]string{found[i]}, g.parents[found[i]]...), " "))
	}
	return lines, true
}

// isRoot is root(c), asked once per commit.
func (g *commitGraph) isRoot(c string) bool {
	r, ok := g.roots[c]
	if !ok {
		r = g.root(c)
		g.roots[c] = r
	}
	return r
}

// genQueue pops the commit of the largest generation first, ties by id.
type genQueue struct {
	g     *commitGraph
	items []string
}

func (q *genQueue) Len() int { return len(q.items) }
func (q *genQueue) Less(i, j int) bool {
	a, b := q.g.gen[q.items[i]], q.g.gen[q.items[j]]
	if a != b {
		return a > b
	}
	return q.items[i] > q.items[j]
}
func (q *genQueue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *genQueue) Push(x any)    { q.items = append(q.items, x.(string)) }
func (q *genQueue) Pop() any {
	x := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return x
}

// tipOnly reports whether a queued commit is not known to be reachable
// from the base: while one is, the walk goes on.
func (q *genQueue) tipOnly(flags map[string]uint8) bool {
	for _, c := range q.items {
		if flags[c]&2 == 0 {
			return true
		}
	}
	return false
}
