package curate

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
)

// eachTask streams the synthetic tasks of the selected repositories, each
// with all its targets, in task id order (both passes see the same order).
func eachTask(ctx context.Context, conn *sql.Conn, opts Options, fn func(*task) error) error {
	q := `SELECT k.id, k.repo_path, k.commit, k.task, t.stage, t.id, t.target::VARCHAR
		FROM synthetic_tasks k JOIN synthetic_targets t ON t.task_id = k.id`
	var args []any
	if len(opts.Repos) > 0 {
		q += ` WHERE k.repo_path IN (` + strings.TrimSuffix(strings.Repeat("?,", len(opts.Repos)), ",") + `)`
		for _, r := range opts.Repos {
			args = append(args, r)
		}
	}
	rows, err := conn.QueryContext(ctx, q+` ORDER BY k.id, t.stage`, args...)
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
