package ingest

import (
	"context"
	"errors"
	"path/filepath"
	"time"

	"github.com/cra-dev/cra/internal/version"
	"github.com/cra-dev/cra/kb"
)

// Outcome is one repository's part of a batch.
type Outcome struct {
	*Result
	Status string `json:"status"` // ok, failed, interrupted, busy
	Error  string `json:"error,omitempty"`
}

// Summary is a whole `cra index` batch.
type Summary struct {
	Repos       []Outcome `json:"repos"`
	Failed      int       `json:"failed"`
	Busy        int       `json:"busy"` // repositories skipped: another run held them
	Interrupted bool      `json:"interrupted"`
}

// IndexRepos indexes each repository in turn into the curated store of the
// home dir, recording one raw.index_runs row per repository. Each
// repository is locked while it is indexed (another run on it is waited
// for up to opts.Wait, else it is skipped as busy). A repository that fails
// is reported in the summary and the batch goes on; the error returned is
// only for what stops the whole batch (a store that cannot be opened, a
// cancelled ctx).
func IndexRepos(ctx context.Context, dir string, paths []string, opts Options) (*Summary, error) {
	opts = opts.WithDefaults()
	curated, err := kb.Open(ctx, dir, kb.Curated, kb.Options{Write: true, Command: "cra index", Wait: kb.BatchWait,
		Waiting: func(holder error) {
			opts.Log.Warn("waiting for the curated store", "holder", holder.Error(), "up_to", kb.BatchWait)
		}})
	if err != nil {
		return nil, err
	}
	defer curated.Close()
	sum := &Summary{Repos: []Outcome{}}
	opts.Progress.Items(len(paths))
	for _, p := range paths {
		opts.Progress.Item(filepath.Base(p))
		lock, err := kb.LockInput(ctx, dir, "index", kb.CanonicalPath(p), "cra index", opts.Wait)
		var busy *kb.BusyError
		if errors.As(err, &busy) {
			sum.Busy++
			sum.Repos = append(sum.Repos, Outcome{Result: &Result{Repo: p, SkipReasons: map[string]int{}}, Status: kb.StatusBusy, Error: busy.Error()})
			opts.Log.Warn("repository busy: skipped", "repo", p, "holder_pid", busy.PID, "holder", busy.Command)
			continue
		}
		if err != nil {
			return sum, err
		}
		out, err := indexOne(ctx, dir, curated, p, opts, sum)
		lock.Release() //nolint:errcheck // dropped at exit anyway
		opts.Progress.ItemDone()
		if err != nil {
			return sum, err
		}
		sum.Repos = append(sum.Repos, out)
		if sum.Interrupted {
			return sum, ctx.Err()
		}
	}
	return sum, nil
}

// indexOne indexes one repository and records its run.
func indexOne(ctx context.Context, dir string, curated *kb.Store, p string, opts Options, sum *Summary) (Outcome, error) {
	start := time.Now()
	res, err := Index(ctx, curated.DB, p, opts)
	if res == nil {
		res = &Result{Repo: p, SkipReasons: map[string]int{}}
	}
	out := Outcome{Result: res, Status: kb.StatusOK}
	switch {
	case ctx.Err() != nil:
		out.Status, out.Error = kb.StatusInterrupted, kb.StatusInterrupted
		sum.Interrupted = true
	case err != nil:
		out.Status, out.Error = kb.StatusFailed, err.Error()
		sum.Failed++
		opts.Log.Error("index failed", "repo", p, "error", err)
	}
	return out, recordRun(context.WithoutCancel(ctx), dir, out, start)
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
		Status: o.Status, Error: o.Error, At: start, CraVersion: version.String(),
	})
	return errors.Join(err, raw.Close())
}
