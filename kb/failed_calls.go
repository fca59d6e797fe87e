package kb

import (
	"context"
	"strings"
)

// The student's calls of runs that failed, as cra distill --from
// failed-runs asks the teacher about them.

// failedCalls is the FROM clause (with its arguments) of the calls of
// stages, each of its own stage, in runs of repos (all when empty) that
// failed.
func failedCalls(stages, repos []string) (string, []any) {
	args := make([]any, 0, len(stages)+len(repos))
	for _, s := range stages {
		args = append(args, s)
	}
	cond := `r.success = false AND c.call_type = c.stage_name AND c.stage_name IN (` +
		strings.TrimSuffix(strings.Repeat("?,", len(stages)), ",") + `)`
	if len(repos) > 0 {
		cond += ` AND r.repo_path IN (` + strings.TrimSuffix(strings.Repeat("?,", len(repos)), ",") + `)`
		for _, r := range repos {
			args = append(args, r)
		}
	}
	return ` FROM retrieval_llm_calls c JOIN task_runs r ON r.task_id = c.task_id WHERE ` + cond, args
}

// FailedCallIDs are the ids of the calls of stages, each of its own
// stage, in runs of repos (all when empty) that failed, in id order.
func FailedCallIDs(ctx context.Context, q Querier, stages, repos []string) ([]string, error) {
	from, args := failedCalls(stages, repos)
	return taskIDs(ctx, q, "select items", `SELECT c.id::VARCHAR`+from+` ORDER BY c.id`, args...)
}

// FailedCall is a student's call of a failed run, with the synthetic task
// an eval replayed in that run ("" when no eval ran it).
type FailedCall struct {
	ID                                  int64
	Stage, System, User, Response, Repo string
	RunTask, EvalTask                   string
}

// FailedCalls reads the calls ids of those FailedCallIDs selects for
// stages and repos, in id order.
func FailedCalls(ctx context.Context, q Querier, stages, repos, ids []string) ([]FailedCall, error) {
	from, args := failedCalls(stages, repos)
	// The eval that ran a failed run gives its ground truth.
	from = strings.Replace(from, " WHERE ", ` LEFT JOIN (SELECT task_run_id, any_value(task_id) AS task_id FROM eval_tasks
		GROUP BY task_run_id) e ON e.task_run_id = r.id WHERE `, 1)
	return queryList(ctx, q, func(c *FailedCall) []any {
		return []any{&c.ID, &c.Stage, &c.System, &c.User, &c.Response, &c.Repo, &c.RunTask, &c.EvalTask}
	}, `SELECT c.id, c.stage_name, coalesce(c.system_prompt, ''), c.prompt,
		coalesce(c.response, ''), r.repo_path, r.task_id, coalesce(e.task_id, '')`+from+
		` AND c.id::VARCHAR IN (SELECT unnest(?::VARCHAR[])) ORDER BY c.id`, append(args, ids)...)
}
