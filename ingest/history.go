package ingest

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"strings"

	"github.com/cra-dev/cra/ingest/history"
)

// batchCommits bounds one history transaction.
const batchCommits = 1000

// indexHistory appends the commits reachable from the source's head that are
// not loaded yet, parents first and in bounded transactions: whatever a kill
// leaves behind is closed under ancestry, which is what lets the next run
// stop at the first known commit.
func indexHistory(ctx context.Context, w *writer, src *source, opts Options, res *Result) error {
	if src.head == "" {
		return nil
	}
	known, err := w.knownCommits(ctx)
	if err != nil {
		return err
	}
	opts.Progress.Phase("commits", 0)
	var batch []history.Commit
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := w.Tx(ctx, func() error { return w.writeCommits(ctx, batch) }); err != nil {
			return err
		}
		res.CommitsAdded += len(batch)
		opts.Progress.Add(int64(len(batch)))
		batch = batch[:0]
		return nil
	}
	err = history.Walk(ctx, src.path, src.head, history.Options{
		Workers: opts.Jobs,
		Known:   func(h string) bool { return known[h] },
	}, func(c history.Commit) error {
		batch = append(batch, c)
		if len(batch) >= batchCommits {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	res.Commits = len(known) + res.CommitsAdded
	return err
}

func (w *writer) knownCommits(ctx context.Context) (map[string]bool, error) {
	known := map[string]bool{}
	err := w.scan(ctx, "SELECT hash FROM commits WHERE repo_id = ?", func(r *sql.Rows) error {
		var h string
		err := r.Scan(&h)
		known[h] = true
		return err
	})
	return known, err
}

var (
	commitsColumns     = []string{"id", "repo_id", "hash", "author", "message", "timestamp", "files_changed", "insertions", "deletions", "parents", "is_merge"}
	commitFilesColumns = []string{"commit_id", "path", "insertions", "deletions", "is_binary"}
)

// writeCommits appends commits and their per-path figures, inside the
// caller's transaction.
func (w *writer) writeCommits(ctx context.Context, batch []history.Commit) error {
	ids, err := w.nextIDs(ctx, "commits_id_seq", len(batch))
	if err != nil {
		return err
	}
	commits := make([][]driver.Value, 0, len(batch))
	var files [][]driver.Value
	for i, c := range batch {
		parents := c.Parents
		if parents == nil {
			parents = []string{}
		}
		commits = append(commits, []driver.Value{ids[i], w.repoID, c.Hash, valid(c.Author), valid(c.Message), c.Time,
			len(c.Files), c.Insertions(), c.Deletions(), parents, c.IsMerge()})
		for _, f := range c.Files {
			files = append(files, []driver.Value{ids[i], valid(f.Path), f.Insertions, f.Deletions, f.Binary})
		}
	}
	if err := w.AppendAll("commits", commitsColumns, commits); err != nil {
		return err
	}
	if err := w.AppendAll("commit_files", commitFilesColumns, files); err != nil {
		return err
	}
	return w.markStale(ctx)
}

// valid makes git's bytes (any encoding) storable: DuckDB VARCHAR is UTF-8.
func valid(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
