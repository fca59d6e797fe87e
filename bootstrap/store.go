package bootstrap

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/cra-dev/cra/internal/version"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// rawStore is the bootstrap's side of the raw store: one connection, owned
// by the run's single writer goroutine (and used before the workers start).
type rawStore struct {
	kb.Writer
}

// testHook, set by tests only, is called at named points inside write
// transactions ("batch", "merge", "walked", and curated's "facts"), and
// when an open of curated waits for another process ("curated wait"): a test stops or kills the process
// there, or fails the write with the error it returns.
var testHook func(point string) error

func hook(point string) error {
	if testHook == nil {
		return nil
	}
	return testHook(point)
}

// syntheticID is the deterministic id of a task (no stage) or a target.
func syntheticID(repo, commit, stage string) string {
	h := sha256.New()
	h.Write([]byte(repo))
	h.Write([]byte{0})
	h.Write([]byte(commit))
	if stage != "" {
		h.Write([]byte{0})
		h.Write([]byte(stage))
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (s *rawStore) beginRun(ctx context.Context, repos int, options any) (int64, error) {
	js, err := json.Marshal(options)
	if err != nil {
		return 0, err
	}
	var id int64
	err = s.Conn.QueryRowContext(ctx, `INSERT INTO bootstrap_runs (started_at, repos, status, options, cra_version)
		VALUES (now(), ?, ?, ?, ?) RETURNING id`, repos, kb.StatusRunning, string(js), version.String()).Scan(&id)
	return id, err
}

// markStaleRuns marks the runs left "running" by a process that no longer
// holds their lock (killed, or the machine went down) as interrupted.
func (s *rawStore) markStaleRuns(ctx context.Context, dir string) error {
	rows, err := s.Conn.QueryContext(ctx, `SELECT id FROM bootstrap_runs WHERE status = ?`, kb.StatusRunning)
	if err != nil {
		return err
	}
	var stale []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		if !kb.RunLive(dir, runLockKind, id) {
			stale = append(stale, id)
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return err
	}
	for _, id := range stale {
		if _, err := s.Conn.ExecContext(ctx, `UPDATE bootstrap_runs SET status = ? WHERE id = ?`, kb.StatusInterrupted, id); err != nil {
			return err
		}
	}
	return nil
}

func (s *rawStore) finishRun(ctx context.Context, id int64, failed int, status string) error {
	_, err := s.Conn.ExecContext(ctx, `UPDATE bootstrap_runs SET finished_at = now(), failed = ?, status = ? WHERE id = ?`,
		failed, status, id)
	return err
}

// watermark returns the ref tips processed last time, nil on a first run.
func (s *rawStore) watermark(ctx context.Context, repo string) ([]string, error) {
	var tips []any
	err := s.Conn.QueryRowContext(ctx, `SELECT watermark FROM bootstrap_repos WHERE repo_path = ?`, repo).Scan(&tips)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]string, len(tips))
	for i, t := range tips {
		out[i], _ = t.(string)
	}
	return out, nil
}

// frontier returns the commits earlier runs left below the commits they
// recorded or walked: their parents that are neither. The walk starts from
// them too, so no commit is ever cut off from later runs by its recorded
// or walked descendants.
func (s *rawStore) frontier(ctx context.Context, repo string) ([]string, error) {
	return kb.Column[string](ctx, s.Conn, `WITH seen AS (
			SELECT commit, parents FROM bootstrap_commits WHERE repo_path = $1
			UNION ALL SELECT commit, parents FROM bootstrap_walked WHERE repo_path = $1)
		SELECT DISTINCT p FROM (SELECT unnest(parents) AS p FROM seen)
		WHERE p NOT IN (SELECT commit FROM seen)
		ORDER BY p`, repo)
}

// nothingNew reports whether repo has no commit to mine with tips and
// --since: its watermark is tips, no commit is left below those recorded
// or walked, none walked is within since. Each question is asked only
// when the ones before found nothing.
func (s *rawStore) nothingNew(ctx context.Context, repo string, tips []string, since time.Time) (bool, error) {
	prev, err := s.watermark(ctx, repo)
	if err != nil || !slices.Equal(prev, tips) {
		return false, err
	}
	front, err := s.frontier(ctx, repo)
	if err != nil || len(front) > 0 {
		return false, err
	}
	n, err := s.unminedSince(ctx, repo, since)
	return n == 0, err
}

// unminedSince counts the commits an earlier walk delivered that are still
// not recorded and that a run with since would mine.
func (s *rawStore) unminedSince(ctx context.Context, repo string, since time.Time) (int, error) {
	var n int
	err := s.Conn.QueryRowContext(ctx, `SELECT count(*) FROM bootstrap_walked WHERE repo_path = $1 AND committed_at >= $2
		AND commit NOT IN (SELECT commit FROM bootstrap_commits WHERE repo_path = $1)`, repo, since).Scan(&n)
	return n, err
}

// knownCommit is a commit an earlier run saw, as later runs need it: known
// (the walk stops there) and its changed files for co-change counts.
type knownCommit struct {
	merge   bool
	parents []string
	co      coCommit
}

func (s *rawStore) knownCommits(ctx context.Context, repo string) (map[string]knownCommit, error) {
	return s.commitsOf(ctx, `SELECT commit, parents, committed_at, files FROM bootstrap_commits WHERE repo_path = ?`, repo)
}

// walkedCommits are the commits an earlier walk delivered that no run has
// recorded (bootstrap_walked).
func (s *rawStore) walkedCommits(ctx context.Context, repo string) (map[string]knownCommit, error) {
	return s.commitsOf(ctx, `SELECT commit, parents, committed_at, files FROM bootstrap_walked WHERE repo_path = $1
		AND commit NOT IN (SELECT commit FROM bootstrap_commits WHERE repo_path = $1)`, repo)
}

func (s *rawStore) commitsOf(ctx context.Context, query string, args ...any) (map[string]knownCommit, error) {
	rows, err := s.Conn.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]knownCommit{}
	for rows.Next() {
		var hash string
		var k knownCommit
		var parents, files []any
		if err := rows.Scan(&hash, &parents, &k.co.at, &files); err != nil {
			return nil, err
		}
		for _, p := range parents {
			if h, ok := p.(string); ok {
				k.parents = append(k.parents, h)
			}
		}
		k.merge = len(k.parents) > 1
		for _, f := range files {
			if p, ok := f.(string); ok {
				k.co.files = append(k.co.files, p)
			}
		}
		out[hash] = k
	}
	return out, rows.Err()
}

var walkedColumns = []string{"repo_path", "commit", "parents", "committed_at", "files"}

// writeWalked keeps the commits a walk delivered that this run does not
// mine, so later runs neither walk nor diff them again (bootstrap_walked).
func (s *rawStore) writeWalked(ctx context.Context, repo string, commits []commitInfo) error {
	rows := make([][]driver.Value, len(commits))
	for i, c := range commits {
		rows[i] = []driver.Value{repo, c.Hash, nonNil(c.Parents), c.CommitTime, nonNil(changedPaths(c))}
	}
	return s.Tx(ctx, func() error {
		if _, err := s.AppendNew(ctx, "bootstrap_walked", walkedColumns, []string{"repo_path", "commit"}, rows); err != nil {
			return err
		}
		return hook("walked")
	})
}

// setRepo records a repository's watermark and last outcome; a nil tips
// keeps the previous watermark (an interrupted or failed run).
func (s *rawStore) setRepo(ctx context.Context, repo string, runID int64, tips []string, status, errText string) error {
	var e any
	if errText != "" {
		e = errText
	}
	if tips == nil {
		_, err := s.Conn.ExecContext(ctx, `INSERT INTO bootstrap_repos (repo_path, watermark, last_run_id, last_status, last_error, updated_at)
			VALUES (?, []::VARCHAR[], ?, ?, ?, now())
			ON CONFLICT (repo_path) DO UPDATE SET last_run_id = excluded.last_run_id,
				last_status = excluded.last_status, last_error = excluded.last_error, updated_at = excluded.updated_at`,
			repo, runID, status, e)
		return err
	}
	_, err := s.Conn.ExecContext(ctx, `INSERT INTO bootstrap_repos (repo_path, watermark, last_run_id, last_status, last_error, updated_at)
		VALUES (?, ?, ?, ?, ?, now())
		ON CONFLICT (repo_path) DO UPDATE SET watermark = excluded.watermark, last_run_id = excluded.last_run_id,
			last_status = excluded.last_status, last_error = excluded.last_error, updated_at = excluded.updated_at`,
		repo, tips, runID, status, e)
	return err
}

// result is what replay decided about one commit, ready to be written.
type result struct {
	commit  commitInfo
	outcome string // OutcomeVerified or the first rule the commit failed
	detail  string
	task    *kb.SyntheticTask
	targets map[string]any // stage → ground truth
}

// forgetWalked deletes the bootstrap_walked rows of the commits batch
// records: they are no longer only walked.
func (s *rawStore) forgetWalked(ctx context.Context, repo string, batch []*result) error {
	hashes := make([]string, len(batch))
	for i, r := range batch {
		hashes[i] = r.commit.Hash
	}
	_, err := s.Conn.ExecContext(ctx, `DELETE FROM bootstrap_walked WHERE repo_path = ? AND commit IN (SELECT unnest(?::VARCHAR[]))`, repo, hashes)
	return err
}

var (
	commitsColumns = []string{"run_id", "repo_path", "commit", "parents", "committed_at", "files",
		"insertions", "deletions", "outcome", "detail"}
	tasksColumns = []string{"id", "run_id", "repo_path", "commit", "parent", "author", "committed_at", "message",
		"task", "files_changed", "insertions", "deletions", "created_at"}
	targetsColumns = []string{"id", "task_id", "repo_path", "commit", "stage", "target", "created_at"}
)

// writeBatch writes results (in walk order) in one transaction: the commits
// seen, and the tasks and targets of the verified ones.
func (s *rawStore) writeBatch(ctx context.Context, runID int64, repo string, batch []*result) error {
	now := time.Now()
	var commits, tasks, targets [][]driver.Value
	for _, r := range batch {
		c := r.commit
		files := make([]string, len(c.Files))
		for i, f := range c.Files {
			files[i] = f.Path
		}
		var detail any
		if r.detail != "" {
			detail = r.detail
		}
		commits = append(commits, []driver.Value{runID, repo, c.Hash, nonNil(c.Parents), c.CommitTime, nonNil(files),
			c.Insertions(), c.Deletions(), r.outcome, detail})
		if r.task == nil {
			continue
		}
		t := r.task
		tasks = append(tasks, []driver.Value{t.ID, runID, repo, t.Commit, t.Parent, t.Author, t.CommittedAt,
			t.Message, t.Task, t.FilesChanged, t.Insertions, t.Deletions, now})
		for _, stage := range schema.SyntheticStages {
			// The Appender JSON-encodes what goes into a JSON column: the
			// target itself, encoded once (a RawMessage would be parsed
			// and compacted again).
			targets = append(targets, []driver.Value{syntheticID(repo, c.Hash, stage), t.ID, repo, c.Hash, stage, r.targets[stage], now})
		}
	}
	// Each load anti-joins on the deterministic ids: even two runs racing
	// on one repository cannot write a row twice.
	return s.Tx(ctx, func() error {
		if _, err := s.AppendNew(ctx, "bootstrap_commits", commitsColumns, []string{"repo_path", "commit"}, commits); err != nil {
			return err
		}
		if err := s.forgetWalked(ctx, repo, batch); err != nil {
			return err
		}
		if err := hook("batch"); err != nil {
			return err
		}
		if _, err := s.AppendNew(ctx, "synthetic_tasks", tasksColumns, []string{"id"}, tasks); err != nil {
			return err
		}
		_, err := s.AppendNew(ctx, "synthetic_targets", targetsColumns, []string{"id"}, targets)
		return err
	})
}
