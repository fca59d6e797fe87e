package curate

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
)

// taskWindow is how many tasks one query of eachTask reads: the driver
// materialises a query's whole result, so targets are read a window of
// tasks at a time and memory stays flat however many there are.
const taskWindow = 2000

// eachTask streams the synthetic tasks of the selected repositories, each
// with all its targets, in task id order (both passes see the same order).
func eachTask(ctx context.Context, conn *sql.Conn, opts Options, fn func(*task) error) error {
	where, args := repoFilter(opts.Repos)
	bounds, err := windowStarts(ctx, conn, where, args)
	if err != nil {
		return err
	}
	for i, lo := range bounds {
		q := `SELECT k.id, k.repo_path, k.commit, k.task, t.stage, t.id, t.target::VARCHAR
			FROM synthetic_tasks k JOIN synthetic_targets t ON t.task_id = k.id
			WHERE k.id >= ?` + where
		wargs := append([]any{lo}, args...)
		if i+1 < len(bounds) {
			q += ` AND k.id < ?`
			wargs = append(wargs, bounds[i+1])
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

// windowStarts returns the first task id of each window of taskWindow
// selected tasks, in id order.
func windowStarts(ctx context.Context, conn *sql.Conn, where string, args []any) ([]string, error) {
	rows, err := conn.QueryContext(ctx, `SELECT id FROM (SELECT k.id, row_number() OVER (ORDER BY k.id) - 1 AS n
		FROM synthetic_tasks k WHERE true`+where+`) WHERE n % ? = 0 ORDER BY id`, append(args, taskWindow)...)
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, id)
	}
	return out, errors.Join(rows.Err(), rows.Close())
}

// eachInWindow runs q and hands each task, with its targets, to fn.
func eachInWindow(ctx context.Context, conn *sql.Conn, q string, args []any, fn func(*task) error) error {
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var cur *task
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
			cur = &task{ID: id, Repo: repo, Commit: commit, Task: text,
				Targets: map[string]json.RawMessage{}, TargetIDs: map[string]string{}}
		}
		cur.Targets[stage] = json.RawMessage(target)
		cur.TargetIDs[stage] = targetID
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if cur != nil {
		return fn(cur)
	}
	return nil
}
