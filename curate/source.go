package curate

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// taskWindow and windowBytes bound one query of eachTask: the driver
// materialises a query's whole result, so targets are read a window of
// tasks at a time — at most taskWindow tasks, and about windowBytes of
// target text (a window ends after the task that crosses it) — and memory
// stays flat however many tasks there are and however large their files.
const (
	taskWindow  = 2000
	windowBytes = 16 << 20
)

// eachTask streams the synthetic tasks of the selected repositories, each
// with all its targets, in task id order (both passes see the same order).
func eachTask(ctx context.Context, conn *sql.Conn, opts Options, fn func(*Task) error) error {
	where, args := repoFilter(opts.Repos)
	return eachTaskWhere(ctx, conn, where, args, fn)
}

// SyntheticTaskIDs are the ids of the synthetic tasks of repos (all
// repositories when empty), in id order. Repositories the raw store has
// nothing of, or a store with no synthetic task, are a usage error, as in
// curate-data.
func SyntheticTaskIDs(ctx context.Context, conn *sql.Conn, repos []string) ([]string, error) {
	if err := checkRepos(ctx, conn, Options{Repos: repos}); err != nil {
		return nil, err
	}
	where, args := repoFilter(repos)
	return taskIDs(ctx, conn, "select synthetic tasks", `SELECT k.id FROM synthetic_tasks k WHERE true`+where+` ORDER BY k.id`, args...)
}

// taskIDs are the ids query q selects, in its order; what names the
// query in its error.
func taskIDs(ctx context.Context, conn *sql.Conn, what, q string, args ...any) ([]string, error) {
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, errors.Join(rows.Err(), rows.Close())
}

// EachTaskOf hands fn each synthetic task of ids, with its targets, in id
// order, a window at a time.
func EachTaskOf(ctx context.Context, conn *sql.Conn, ids []string, fn func(*Task) error) error {
	if len(ids) == 0 {
		return nil
	}
	return eachTaskWhere(ctx, conn, ` AND k.id IN (SELECT unnest(?::VARCHAR[]))`, []any{ids}, fn)
}

// eachTaskWhere hands fn each task the condition where (ANDed onto a
// WHERE over synthetic_tasks k) selects, with its targets, in id order,
// a window at a time.
func eachTaskWhere(ctx context.Context, conn *sql.Conn, where string, args []any, fn func(*Task) error) error {
	bounds, err := windowStarts(ctx, conn, where, args)
	if err != nil {
		return err
	}
	for i, lo := range bounds {
		// The bounds are on both sides of the join, so that neither side
		// holds more than the window's targets.
		q := `SELECT k.id, k.repo_path, k.commit, k.task, t.stage, t.id, t.target::VARCHAR
			FROM synthetic_tasks k JOIN synthetic_targets t ON t.task_id = k.id
			WHERE k.id >= ? AND t.task_id >= ?` + where
		wargs := append([]any{lo, lo}, args...)
		if i+1 < len(bounds) {
			q += ` AND k.id < ? AND t.task_id < ?`
			wargs = append(wargs, bounds[i+1], bounds[i+1])
		}
		if err := eachInWindow(ctx, conn, q+` ORDER BY k.id, t.stage`, wargs, fn); err != nil {
			return err
		}
	}
	return nil
}

// repoFilter is the SQL condition (to AND onto a WHERE) selecting repos.
func repoFilter(repos []string) (string, []any) {
	if len(repos) == 0 {
		return "", nil
	}
	args := make([]any, len(repos))
	for i, r := range repos {
		args[i] = r
	}
	return ` AND k.repo_path IN (` + strings.TrimSuffix(strings.Repeat("?,", len(repos)), ",") + `)`, args
}

// windowStarts returns the first task id of each window of selected
// tasks, in id order: a window starts every taskWindow tasks and where the
// target bytes of the tasks before it pass a multiple of windowBytes.
func windowStarts(ctx context.Context, conn *sql.Conn, where string, args []any) ([]string, error) {
	return taskIDs(ctx, conn, "size the synthetic targets", `WITH k AS (SELECT k.id FROM synthetic_tasks k WHERE true`+where+`),
		t AS (SELECT task_id, sum(strlen(target::VARCHAR)) AS b FROM synthetic_targets WHERE task_id IN (SELECT id FROM k) GROUP BY task_id),
		s AS (SELECT k.id, coalesce(t.b, 0) AS b FROM k LEFT JOIN t ON t.task_id = k.id),
		c AS (SELECT id, (row_number() OVER w - 1) // ? AS byCount, (sum(b) OVER w - b) // ? AS byBytes FROM s WINDOW w AS (ORDER BY id)),
		l AS (SELECT id, byCount, byBytes, lag(byCount) OVER (ORDER BY id) AS prevCount, lag(byBytes) OVER (ORDER BY id) AS prevBytes FROM c)
		SELECT id FROM l WHERE prevCount IS NULL OR byCount <> prevCount OR byBytes <> prevBytes ORDER BY id`,
		append(args, taskWindow, windowBytes)...)
}

// eachInWindow runs q and hands each task, with its targets, to fn.
func eachInWindow(ctx context.Context, conn *sql.Conn, q string, args []any, fn func(*Task) error) error {
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("read the synthetic targets: %w", err)
	}
	defer rows.Close()
	var cur *Task
	for rows.Next() {
		var id, repo, commit, text, stage, targetID, target string
		if err := rows.Scan(&id, &repo, &commit, &text, &stage, &targetID, &target); err != nil {
			return err
		}
		if cur != nil && cur.ID != id {
			if err := fn(cur); err != nil {
				return err
			}
			cur = nil
		}
		if cur == nil {
			cur = &Task{ID: id, Repo: repo, Commit: commit, Task: text,
				Targets: map[string]json.RawMessage{}, TargetIDs: map[string]string{}}
		}
		cur.Targets[stage] = json.RawMessage(target)
		cur.TargetIDs[stage] = targetID
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the synthetic targets: %w", err)
	}
	if cur != nil {
		return fn(cur)
	}
	return nil
}
