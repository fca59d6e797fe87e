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

// knowledge is a scratch home whose curated store holds one repository at
// one revision: a task's parent, so retrieval sees what the author saw and
// nothing after it. It moves forward by incremental indexing when the next
// parent descends from the revision it holds (the index only adds
// commits), and is rebuilt otherwise (a branch elsewhere, an older
// commit): no commit outside the parent's history is ever in it.
type knowledge struct {
	dir, repo, rev string
	opts           ingest.Options
}

// KnowledgeDir is where an eval keeps its scratch knowledge bases.
func KnowledgeDir(home string) string { return filepath.Join(home, "eval", "kb") }

// at makes the store hold repo at rev.
func (k *knowledge) at(ctx context.Context, rev string) error {
	if k.rev == rev {
		return nil
	}
	if k.rev == "" || !isAncestor(ctx, k.repo, k.rev, rev) {
		if err := os.RemoveAll(k.dir); err != nil {
			return err
		}
		if err := os.MkdirAll(k.dir, 0o755); err != nil {
			return err
		}
		if err := kb.Init(ctx, k.dir, "cra eval"); err != nil {
			return err
		}
	}
	opts := k.opts
	opts.Rev = rev
	sum, err := ingest.IndexRepos(ctx, k.dir, []string{k.repo}, opts)
	if err != nil {
		return fmt.Errorf("index %s at %.12s: %w", k.repo, rev, err)
	}
	if sum.Failed > 0 || sum.Busy > 0 {
		return fmt.Errorf("index %s at %.12s failed", k.repo, rev)
	}
	k.rev = rev
	return nil
}

func isAncestor(ctx context.Context, repo, a, b string) bool {
	return exec.CommandContext(ctx, "git", "-C", repo, "merge-base", "--is-ancestor", a, b).Run() == nil
}
