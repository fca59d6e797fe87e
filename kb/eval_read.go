package kb

import (
	"context"
	"fmt"
)

// EvalTask is a synthetic task an eval ran: its repository and commit,
// the eval's name and the task's id.
type EvalTask struct {
	Repo, Commit, Eval, Task string
}

// EvalTasks lists every synthetic task any eval ran, once per eval, for
// curate-data's check that no train example comes from one.
func EvalTasks(ctx context.Context, q Querier) ([]EvalTask, error) {
	out, err := queryList(ctx, q, func(t *EvalTask) []any { return []any{&t.Repo, &t.Commit, &t.Eval, &t.Task} },
		`SELECT DISTINCT k.repo_path, k.commit, r.name, k.id FROM eval_tasks e
		JOIN synthetic_tasks k ON k.id = e.task_id JOIN eval_runs r ON r.id = e.eval_run_id ORDER BY ALL`)
	if err != nil {
		return nil, fmt.Errorf("read the evaluated tasks: %w", err)
	}
	return out, nil
}
