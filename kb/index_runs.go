package kb

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"time"
)

// IndexRun is one repository's `cra index` run, as raw.index_runs keeps it.
type IndexRun struct {
	RepoPath     string
	Rev          string // "worktree" or the indexed commit hash
	FilesScanned int
	FilesChanged int
	FilesDeleted int
	FilesSkipped int
	FilesFailed  int
	CommitsAdded int
	SkipReasons  map[string]int
	Duration     time.Duration
	Status       string // ok, partial, failed, interrupted
	Error        string
	At           time.Time
	CraVersion   string // internal/version.String() of the cra that ran it
}

// AppendIndexRun records run in the raw store (q is its connection).
func AppendIndexRun(ctx context.Context, q Execer, run IndexRun) error {
	type reason struct {
		Reason string `json:"reason"`
		Files  int    `json:"files"`
	}
	reasons := []reason{}
	for r, n := range run.SkipReasons {
		reasons = append(reasons, reason{r, n})
	}
	sort.Slice(reasons, func(i, j int) bool { return reasons[i].Reason < reasons[j].Reason })
	js, err := json.Marshal(reasons)
	if err != nil {
		return err
	}
	var errText any
	if run.Error != "" {
		errText = run.Error
	}
	_, err = q.ExecContext(ctx, `INSERT INTO index_runs
		(repo_path, rev, files_scanned, files_changed, files_deleted, files_skipped, files_failed,
		 commits_added, skip_reasons, duration_ms, status, error, timestamp, cra_version)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?::JSON::STRUCT(reason VARCHAR, files INTEGER)[], ?, ?, ?, ?, ?)`,
		run.RepoPath, run.Rev, run.FilesScanned, run.FilesChanged, run.FilesDeleted, run.FilesSkipped,
		run.FilesFailed, run.CommitsAdded, string(js), run.Duration.Milliseconds(), run.Status, errText, run.At, run.CraVersion)
	if err != nil {
		return fmt.Errorf("record index run of %s: %w", run.RepoPath, err)
	}
	return nil
}

// Execer is what a store writer writes through: *sql.DB, *sql.Conn, *sql.Tx.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}
