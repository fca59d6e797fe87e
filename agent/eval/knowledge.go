package eval

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/cra-dev/cra/ingest"
	"github.com/cra-dev/cra/kb"
)

// knowledge is a scratch curated store, held open for a unit of tasks,
// that holds one repository at one revision: a task's parent, so
// retrieval sees what the author saw and nothing after it. It moves
// forward by incremental indexing when the next parent descends from the
// revision it holds (the index only adds commits), and is rebuilt
// otherwise (a branch elsewhere, an older commit): no commit outside the
// parent's history is ever in it. The runs read it through the same open
// store (orchestrator.Options.Knowledge).
type knowledge struct {
	dir, repo, rev string
	opts           ingest.Options
	store          *kb.Store
}

// KnowledgeDir is where an eval keeps its scratch knowledge bases.
func KnowledgeDir(home string) string { return filepath.Join(home, "eval", "kb") }

// at makes the store hold repo at rev.
func (k *knowledge) at(ctx context.Context, rev string) error {
	if k.rev == rev {
		return nil
	}
	if k.store == nil || !isAncestor(ctx, k.repo, k.rev, rev) {
		if err := k.close(); err != nil {
			return err
		}
		if err := os.RemoveAll(k.dir); err != nil {
			return err
		}
		s, err := kb.Create(ctx, k.dir, kb.Curated, "cra eval")
		if err != nil {
			return err
		}
		k.store = s
	}
	opts := k.opts
	opts.Rev = rev
	k.rev = ""
	if _, err := ingest.Index(ctx, k.store.DB, k.repo, opts); err != nil {
		return fmt.Errorf("index %s at %.12s: %w", k.repo, rev, err)
	}
	k.rev = rev
	return nil
}

func (k *knowledge) close() error {
	if k.store == nil {
		return nil
	}
	err := k.store.Close()
	k.store, k.rev = nil, ""
	return err
}

func isAncestor(ctx context.Context, repo, a, b string) bool {
	return a != "" && exec.CommandContext(ctx, "git", "-C", repo, "merge-base", "--is-ancestor", a, b).Run() == nil
}
