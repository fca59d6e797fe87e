package kb

import (
	"context"
	"database/sql"
	"errors"
)

// FinishedSolve is a finished cra solve run as the run log keeps it.
type FinishedSolve struct {
	TaskRunID int64
	Status    string // the orchestrator's
	ModelMS   int64  // the latency of every model call of its passes
}

// FinishedSolveRun finds the finished solve run of taskID: ok false when
// it did not finish (never started, or killed before its end).
func FinishedSolveRun(ctx context.Context, q Querier, taskID string) (FinishedSolve, bool, error) {
	var s FinishedSolve
	err := q.QueryRowContext(ctx, `SELECT t.id, o.status,
		(SELECT coalesce(sum(latency_ms), 0) FROM retrieval_llm_calls c WHERE starts_with(c.task_id, t.task_id || ':'))
		FROM task_runs t JOIN orchestrator_runs o ON o.task_id = t.task_id
		WHERE t.task_id = ? AND t.success IS NOT NULL AND o.status <> 'running'`, taskID).Scan(&s.TaskRunID, &s.Status, &s.ModelMS)
	if errors.Is(err, sql.ErrNoRows) {
		return s, false, nil
	}
	return s, err == nil, err
}

// AttemptsApplied says, for each implement attempt of the passes of run
// taskID in order, whether its patch applied.
func AttemptsApplied(ctx context.Context, q Querier, taskID string) ([]bool, error) {
	return queryList(ctx, q, func(ok *bool) []any { return []any{ok} },
		`SELECT a.patch_applied FROM run_attempts a JOIN task_runs t ON t.id = a.task_run_id
		WHERE starts_with(t.task_id, ? || ':') ORDER BY a.id`, taskID)
}

// ArchivedSession is the blob of the latest archive of task taskID's
// session: ok false when it has none.
func ArchivedSession(ctx context.Context, q Querier, taskID string) ([]byte, bool, error) {
	var blob []byte
	err := q.QueryRowContext(ctx, `SELECT session_blob FROM session_archives WHERE task_id = ? ORDER BY id DESC LIMIT 1`, taskID).Scan(&blob)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	return blob, err == nil, err
}
