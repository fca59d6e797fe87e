package history

import (
	"context"
	"fmt"
	"runtime"

	"github.com/go-git/go-git/v5/plumbing"
	"golang.org/x/sync/errgroup"
)

// inFlight is how many commits per worker may be computed ahead of the one
// being delivered; it bounds memory while keeping workers busy when one
// commit is slow.
const inFlight = 32

// Walk delivers every commit reachable from head (a full 40-hex hash) that is
// not Known, parents before children (a topological order, oldest first),
// calling fn from one goroutine. The walk does not descend below a Known
// commit: callers load commits in the order delivered, so the ancestors of a
// known commit are known too. With opts.Want set, only the commits it wants
// are delivered (and diffed), in the same order. An error from fn stops the
// walk and is returned. ctx cancellation stops it promptly with ctx.Err().
func Walk(ctx context.Context, repoPath string, head string, opts Options, fn func(Commit) error) error {
	h, ok := parseHash([]byte(head))
	if !ok {
		return fmt.Errorf("history: head %q is not a full 40-hex commit hash", head)
	}
	src, err := openSource(repoPath)
	if err != nil {
		return err
	}
	objs := src.open()
	p, err := planWalk(ctx, objs, h, src.shallow, opts.Known, opts.Want != nil)
	objs.close()
	if err != nil {
		return fmt.Errorf("history: %s: %w", repoPath, err)
	}
	order := make([]int, 0, len(p.nodes))
	for i, n := range p.nodes {
		if opts.Want == nil || opts.Want(n.hash.String(), n.committed) {
			order = append(order, i)
		}
	}
	if len(order) == 0 {
		return nil
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	workers = min(workers, len(order))
	return deliver(ctx, src, p, order, workers, fn)
}

// deliver computes the commits of p at the positions order lists on
// workers goroutines and hands them to fn in that order. Results land in a
// ring of one-slot channels: a commit is dispatched only when its slot is
// free (a token from the window), so a worker never blocks on sending.
func deliver(parent context.Context, src *source, p *plan, order []int, workers int, fn func(Commit) error) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)

	window := workers * inFlight
	ring := make([]chan Commit, window)
	for i := range ring {
		ring[i] = make(chan Commit, 1)
	}
	tokens := make(chan struct{}, window)
	jobs := make(chan int)

	g.Go(func() error {
		defer close(jobs)
		for i := range order {
			select {
			case tokens <- struct{}{}:
			case <-gctx.Done():
				return gctx.Err()
			}
			select {
			case jobs <- i:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	for range workers {
		g.Go(func() error {
			w := newWorker(src, p)
			defer w.close()
			for i := range jobs {
				n := &p.nodes[order[i]]
				c, err := w.commit(gctx, n)
				if err != nil {
					return fmt.Errorf("history: %s: commit %s: %w", src.path, n.hash, err)
				}
				ring[i%window] <- c
			}
			return nil
		})
	}

	var fnErr error
	delivered := 0
	for i := range order {
		var c Commit
		select {
		case c = <-ring[i%window]:
		case <-gctx.Done():
		}
		if gctx.Err() != nil {
			break
		}
		if fnErr = fn(c); fnErr != nil {
			break
		}
		delivered++
		<-tokens
	}
	cancel()
	err := g.Wait()
	switch {
	case fnErr != nil:
		return fnErr
	case delivered == len(order):
		return nil
	case parent.Err() != nil:
		return parent.Err() // workers report the cancellation wrapped; the caller wants ctx.Err()
	}
	return err
}

// worker turns plan nodes into Commits, with its own object storage.
type worker struct {
	objs    *objects
	plan    *plan
	trees   treeDiffer
	stats   statter
	changes []change
	buf     []byte
}

func newWorker(src *source, p *plan) *worker {
	objs := src.open()
	return &worker{
		objs:  objs,
		plan:  p,
		trees: treeDiffer{objs: objs},
		stats: statter{objs: objs},
	}
}

func (w *worker) close() { w.objs.close() }

func (w *worker) commit(ctx context.Context, n *node) (Commit, error) {
	obj, err := w.objs.object(plumbing.CommitObject, n.hash)
	if err != nil {
		return Commit{}, err
	}
	if w.buf, err = readAll(obj, w.buf); err != nil {
		return Commit{}, err
	}
	raw, err := parseCommit(w.buf)
	if err != nil {
		return Commit{}, err
	}
	author, committer := raw.author, raw.committer
	if raw.encoding != nil {
		author = []byte(reencode(author, raw.encoding))
		committer = []byte(reencode(committer, raw.encoding))
	}
	c := Commit{Hash: n.hash.String(), Parents: make([]string, len(n.parents)), Tree: n.tree.String()}
	c.Author, c.Time = ident(author)
	c.Committer, c.CommitTime = ident(committer)
	c.Message = trimNewlines(reencode(raw.message, raw.encoding))
	for i, ph := range n.parents {
		c.Parents[i] = ph.String()
	}
	if len(n.parents) > 1 {
		return c, nil // git log shows no diff for a merge
	}
	var from plumbing.Hash // the empty tree for a root or a shallow boundary
	if len(n.parents) == 1 {
		if from, err = w.parentTree(n.parents[0]); err != nil {
			return c, err
		}
	}
	w.changes, err = w.trees.diff(from, n.tree, w.changes[:0])
	if err != nil {
		return c, err
	}
	c.Files = make([]FileChange, 0, len(w.changes))
	for _, ch := range w.changes {
		if err := ctx.Err(); err != nil {
			return c, err
		}
		fc, err := w.stats.stat(ch)
		if err != nil {
			return c, fmt.Errorf("%s: %w", ch.path, err)
		}
		c.Files = append(c.Files, fc)
	}
	sortFiles(c.Files)
	return c, nil
}

// parentTree is the tree of parent h, from the plan or, for a known commit,
// from the repository.
func (w *worker) parentTree(h plumbing.Hash) (plumbing.Hash, error) {
	if t, ok := w.plan.treeOf(h); ok {
		return t, nil
	}
	obj, err := w.objs.object(plumbing.CommitObject, h)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("parent %w", err)
	}
	if w.buf, err = readAll(obj, w.buf); err != nil {
		return plumbing.ZeroHash, err
	}
	raw, err := parseCommit(w.buf)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("parent %s: %w", h, err)
	}
	return raw.tree, nil
}
