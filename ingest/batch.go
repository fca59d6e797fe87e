package ingest

import (
	"context"
	"errors"
	"time"

	"github.com/cra-dev/cra/kb"
)

// Outcome is one repository's part of a batch.
type Outcome struct {
	*Result
	Status string `json:"status"` // ok, failed, interrupted
	Error  string `json:"error,omitempty"`
}

// Summary is a whole `cra index` batch.
type Summary struct {
	Repos       []Outcome `json:"repos"`
	Failed      int       `json:"failed"`
	Interrupted bool      `json:"interrupted"`
}

// IndexRepos indexes each repository in turn into the curated store of the
// home dir, recording one raw.index_runs row per repository. A repository
// that fails is reported in the summary and the batch goes on; the error
// returned is only for what stops the whole batch (a store that cannot be
// opened, a cancelled ctx).
func IndexRepos(ctx context.Context, dir string, paths []string, opts Options) (*Summary, error) {
	opts = opts.withDefaults()
	curated, err := kb.Open(ctx, dir, kb.Curated, kb.Options{Write: true, Command: "cra index"})
	if err != nil {
		return nil, err
	}
	defer curated.Close()
	sum := &Summary{Repos: []Outcome{}}
	for _, p := range paths {
		start := time.Now()
		res, err := Index(ctx, curated.DB, p, opts)
		if res == nil {
			res = &Result{Repo: p, SkipReasons: map[string]int{}}
		}
		out := Outcome{Result: res, Status: "ok"}
		switch {
		case ctx.Err() != nil:
			out.Status, out.Error = "interrupted", "interrupted"
			sum.Interrupted = true
		case err != nil:
			out.Status, out.Error = "failed", err.Error()
			sum.Failed++
			opts.Log.Error("index failed", "repo", p, "error", err)
		}
		sum.Repos = append(sum.Repos, out)
		if err := recordRun(context.WithoutCancel(ctx), dir, out, start); err != nil {
			return sum, err
		}
		if sum.Interrupted {
			return sum, ctx.Err()
		}
	}
	return sum, nil
}

// recordRun appends the outcome to raw.index_runs, holding the raw store
// only for that write.
func recordRun(ctx context.Context, dir string, o Outcome, start time.Time) error {
	raw, err := kb.Open(ctx, dir, kb.Raw, kb.Options{Write: true, Command: "cra index", Wait: kb.BatchWait})
	if err != nil {
		return err
	}
	rev := o.Rev
	if rev == "" {
		rev = "worktree"
	}
	err = kb.AppendIndexRun(ctx, raw.DB, kb.IndexRun{
		RepoPath: o.Repo, Rev: rev, FilesScanned: o.Files, FilesChanged: o.FilesChanged,
		FilesDeleted: o.FilesDeleted, FilesSkipped: o.FilesSkipped, FilesFailed: o.FilesFailed,
		CommitsAdded: o.CommitsAdded, SkipReasons: o.SkipReasons, Duration: time.Since(start),
		Status: o.Status, Error: o.Error, At: start,
	})
	return errors.Join(err, raw.Close())
}
