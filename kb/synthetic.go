package kb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/cra-dev/cra/kb/schema"
)

// SyntheticTask is one qualifying commit: the task it stands for and where it
// comes from (raw.synthetic_tasks).
type SyntheticTask struct {
	ID           string    `json:"id"`
	RunID        int64     `json:"run_id"`
	RepoPath     string    `json:"repo_path"`
	Commit       string    `json:"commit"`
	Parent       string    `json:"parent"`
	Author       string    `json:"author"`
	CommittedAt  time.Time `json:"committed_at"`
	Message      string    `json:"message"`
	Task         string    `json:"task"`
	FilesChanged int       `json:"files_changed"`
	Insertions   int       `json:"insertions"`
	Deletions    int       `json:"deletions"`
}

// SyntheticRepos are the repositories bootstrap mined a synthetic task
// of, in path order.
func SyntheticRepos(ctx context.Context, q Querier) ([]string, error) {
	repos, err := queryList(ctx, q, func(s *string) []any { return []any{s} },
		`SELECT DISTINCT repo_path FROM synthetic_tasks ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("read the mined repositories: %w", err)
	}
	return repos, nil
}

// TaskTruth is a synthetic task with its ground truth: Targets is one JSON
// object of every stage's target (stage → target).
type TaskTruth struct {
	ID, Repo, Commit, Parent, Task string
	CommittedAt                    time.Time
	Targets                        string
}

// EachTaskTruth hands fn every synthetic task with its ground truth, by
// repository, commit time and id.
func EachTaskTruth(ctx context.Context, q Querier, fn func(TaskTruth) error) error {
	rows, err := q.QueryContext(ctx, `SELECT k.id, k.repo_path, k.commit, k.parent, k.task, k.committed_at,
		json_group_object(t.stage, t.target)::VARCHAR
		FROM synthetic_tasks k JOIN synthetic_targets t ON t.task_id = k.id
		GROUP BY ALL ORDER BY k.repo_path, k.committed_at, k.id`)
	if err != nil {
		return fmt.Errorf("select eval tasks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t TaskTruth
		if err := rows.Scan(&t.ID, &t.Repo, &t.Commit, &t.Parent, &t.Task, &t.CommittedAt, &t.Targets); err != nil {
			return err
		}
		if err := fn(t); err != nil {
			return err
		}
	}
	return rows.Err()
}

// TruthsOf is the ground truth of each of tasks (synthetic task ids): task
// id → one JSON object of every stage's target.
func TruthsOf(ctx context.Context, q Querier, tasks []string) (map[string]string, error) {
	type truth struct{ id, targets string }
	rows, err := queryList(ctx, q, func(t *truth) []any { return []any{&t.id, &t.targets} },
		`SELECT task_id, json_group_object(stage, target)::VARCHAR FROM synthetic_targets
		WHERE task_id IN (SELECT unnest(?::VARCHAR[])) GROUP BY 1`, tasks)
	if err != nil {
		return nil, fmt.Errorf("read the eval tasks' ground truth: %w", err)
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		out[r.id] = r.targets
	}
	return out, nil
}

// RepoSources says which sources of training data KnownRepos looks in.
type RepoSources struct {
	Synthetic bool // synthetic tasks
	Logged    bool // solve runs (a --plan run's mode is implement)
	Distilled bool // verified distilled answers
}

// KnownRepos are the repositories the sources of src hold anything of,
// in path order.
func KnownRepos(ctx context.Context, q Querier, src RepoSources) ([]string, error) {
	var parts []string
	var args []any
	if src.Synthetic {
		parts = append(parts, `SELECT repo_path FROM synthetic_tasks`)
	}
	if src.Logged {
		parts = append(parts, `SELECT repo_path FROM task_runs WHERE mode IN ('solve', ?)`) // a --plan run's mode is implement
		args = append(args, schema.StageImplement)
	}
	if src.Distilled {
		parts = append(parts, `SELECT repo_path FROM distill_outcomes WHERE verified`)
	}
	return queryList(ctx, q, func(s *string) []any { return []any{s} },
		`SELECT DISTINCT repo_path FROM (`+strings.Join(parts, " UNION ALL ")+`) ORDER BY 1`, args...)
}

// TaskFilter selects synthetic tasks: those of IDs when it is set, else
// those of Repos (every task when both are empty).
type TaskFilter struct {
	Repos, IDs []string
}

// where is the condition (to AND onto a WHERE over synthetic_tasks k)
// selecting f's tasks.
func (f TaskFilter) where() (string, []any) {
	if f.IDs != nil {
		return ` AND k.id IN (SELECT unnest(?::VARCHAR[]))`, []any{f.IDs}
	}
	if len(f.Repos) == 0 {
		return "", nil
	}
	args := make([]any, len(f.Repos))
	for i, r := range f.Repos {
		args[i] = r
	}
	return ` AND k.repo_path IN (` + strings.TrimSuffix(strings.Repeat("?,", len(f.Repos)), ",") + `)`, args
}

// SyntheticTaskIDs are the ids of the synthetic tasks of repos (all
// repositories when empty), in id order.
func SyntheticTaskIDs(ctx context.Context, q Querier, repos []string) ([]string, error) {
	where, args := TaskFilter{Repos: repos}.where()
	return taskIDs(ctx, q, "select synthetic tasks", `SELECT k.id FROM synthetic_tasks k WHERE true`+where+` ORDER BY k.id`, args...)
}

// SyntheticWindowStarts returns the first task id of each window of f's
// tasks, in id order: a window starts every tasks tasks and where the
// target bytes of the tasks before it pass a multiple of bytes.
func SyntheticWindowStarts(ctx context.Context, q Querier, f TaskFilter, tasks, bytes int) ([]string, error) {
	where, args := f.where()
	return taskIDs(ctx, q, "size the synthetic targets", `WITH k AS (SELECT k.id FROM synthetic_tasks k WHERE true`+where+`),
		t AS (SELECT task_id, sum(strlen(target::VARCHAR)) AS b FROM synthetic_targets WHERE task_id IN (SELECT id FROM k) GROUP BY task_id),
		s AS (SELECT k.id, coalesce(t.b, 0) AS b FROM k LEFT JOIN t ON t.task_id = k.id),
		c AS (SELECT id, (row_number() OVER w - 1) // ? AS byCount, (sum(b) OVER w - b) // ? AS byBytes FROM s WINDOW w AS (ORDER BY id)),
		l AS (SELECT id, byCount, byBytes, lag(byCount) OVER (ORDER BY id) AS prevCount, lag(byBytes) OVER (ORDER BY id) AS prevBytes FROM c)
		SELECT id FROM l WHERE prevCount IS NULL OR byCount <> prevCount OR byBytes <> prevBytes ORDER BY id`,
		append(args, tasks, bytes)...)
}

// taskIDs are the ids query q selects, in its order; what names the
// query in its error.
func taskIDs(ctx context.Context, q Querier, what, query string, args ...any) ([]string, error) {
	ids, err := queryList(ctx, q, func(s *string) []any { return []any{s} }, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return ids, nil
}

// TaskTarget is one stage's target of a synthetic task, with the task.
type TaskTarget struct {
	TaskID, Repo, Commit, Task string
	Stage, TargetID, Target    string // Target is JSON
}

// EachTaskTarget hands fn every target of f's tasks with ids from lo up
// to hi (to the last when hi is ""), by task id and stage.
func EachTaskTarget(ctx context.Context, q Querier, f TaskFilter, lo, hi string, fn func(TaskTarget) error) error {
	where, args := f.where()
	// The bounds are on both sides of the join, so that neither side
	// holds more than the window's targets.
	query := `SELECT k.id, k.repo_path, k.commit, k.task, t.stage, t.id, t.target::VARCHAR
			FROM synthetic_tasks k JOIN synthetic_targets t ON t.task_id = k.id
			WHERE k.id >= ? AND t.task_id >= ?` + where
	wargs := append([]any{lo, lo}, args...)
	if hi != "" {
		query += ` AND k.id < ? AND t.task_id < ?`
		wargs = append(wargs, hi, hi)
	}
	return eachRow(ctx, q, "read the synthetic targets", query+` ORDER BY k.id, t.stage`, wargs, func(rows *sql.Rows) error {
		var t TaskTarget
		if err := rows.Scan(&t.TaskID, &t.Repo, &t.Commit, &t.Task, &t.Stage, &t.TargetID, &t.Target); err != nil {
			return err
		}
		return fn(t)
	})
}
