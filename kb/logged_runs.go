package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/cra-dev/cra/kb/schema"
)

// The run log as curate-data reads it for logged examples: finished runs,
// their passes, attempts and eval scores, then their calls' text a window
// at a time.

// LoggedRun is a finished cra solve run with calls logged for a stage:
// its call ids and sizes, and, for an eval's run, the task it was scored
// on.
type LoggedRun struct {
	Run, Repo string
	Status    string // the orchestrator's: complete, partial, failed; "" for a --plan run
	Success   bool
	FinalDiff string
	EvalTask  string // synthetic_tasks.id when an eval ran it
	EvalRun   int64
	Commit    string // the eval task's commit
	Calls     int64  // its answered calls of a logged stage
	First     int64  // their first and last id
	Last      int64
	Bytes     int64 // their text's size
}

// loggedCallsOf is the condition selecting the answered calls of a logged
// stage (a call's type is its stage), not the oracle's.
func loggedCallsOf() string {
	return `call_type IN ('` + strings.Join(schema.LoggedStages, "', '") + `') AND response IS NOT NULL AND error IS NULL AND model <> 'oracle'`
}

// EachLoggedRun hands fn the finished runs of repos (all when empty) with
// answered calls of a logged stage, by their first call.
func EachLoggedRun(ctx context.Context, q Querier, repos []string, fn func(LoggedRun) error) error {
	where, args := "", []any{schema.StageImplement}
	if len(repos) > 0 {
		where = ` AND t.repo_path IN (` + strings.TrimSuffix(strings.Repeat("?,", len(repos)), ",") + `)`
		for _, r := range repos {
			args = append(args, r)
		}
	}
	return eachRow(ctx, q, "read the logged runs", `WITH c AS (
			SELECT split_part(task_id, ':', 1) AS run, count(*) AS calls, min(id) AS first, max(id) AS last,
				sum(strlen(prompt) + coalesce(strlen(response), 0) + coalesce(strlen(system_prompt), 0)) AS bytes FROM retrieval_llm_calls
			WHERE `+loggedCallsOf()+` GROUP BY 1)
		SELECT c.run, t.repo_path, coalesce(o.status, ''), t.success, coalesce(t.final_diff, ''), coalesce(e.task_id, ''),
			coalesce(e.eval_run_id, 0), coalesce(k.commit, ''), c.calls, c.first, c.last, c.bytes
		FROM c JOIN task_runs t ON t.task_id = c.run
		LEFT JOIN orchestrator_runs o ON o.task_id = c.run
		LEFT JOIN eval_tasks e ON e.task_run_id = t.id
		LEFT JOIN synthetic_tasks k ON k.id = e.task_id
		WHERE t.success IS NOT NULL AND t.mode IN ('solve', ?) AND coalesce(o.status, '') <> 'running'`+where+`
		ORDER BY c.first`, args, func(rows *sql.Rows) error {
		var r LoggedRun
		if err := rows.Scan(&r.Run, &r.Repo, &r.Status, &r.Success, &r.FinalDiff, &r.EvalTask, &r.EvalRun, &r.Commit,
			&r.Calls, &r.First, &r.Last, &r.Bytes); err != nil {
			return err
		}
		return fn(r)
	})
}

// LoggedPass is a pass of a run: the orchestrator's, or for a --plan run
// (no orchestrator rows) its one implement step.
type LoggedPass struct {
	Run, TaskID, PassType, PartID, StepID string
	Seq                                   int
	Success                               bool
}

// EachLoggedPass hands fn every pass of every run, by run and sequence.
func EachLoggedPass(ctx context.Context, q Querier, fn func(LoggedPass) error) error {
	return eachRow(ctx, q, "read the logged passes", `SELECT split_part(t.task_id, ':', 1), t.task_id, coalesce(p.pass_type, ?),
			coalesce(p.part_id, ''), coalesce(p.step_id, ''), coalesce(p.sequence_order, 0), coalesce(t.success, false)
		FROM task_runs t LEFT JOIN orchestrator_passes p ON p.task_run_id = t.id
		WHERE contains(t.task_id, ':') AND (p.id IS NOT NULL OR t.mode = ?)
		ORDER BY 1, 6, t.id`, []any{schema.PassStepImplement, schema.StageImplement}, func(rows *sql.Rows) error {
		var p LoggedPass
		if err := rows.Scan(&p.Run, &p.TaskID, &p.PassType, &p.PartID, &p.StepID, &p.Seq, &p.Success); err != nil {
			return err
		}
		return fn(p)
	})
}

// LoggedAttempt is an implement attempt of a pass and its tests.
type LoggedAttempt struct {
	TaskID       string // the pass's
	ID           int64
	Attempt      int
	Applied      bool
	TestsPassed  bool
	FailingTests string // JSON list
}

// EachLoggedAttempt hands fn every implement attempt, in id order.
func EachLoggedAttempt(ctx context.Context, q Querier, fn func(LoggedAttempt) error) error {
	return eachRow(ctx, q, "read the logged attempts", `SELECT t.task_id, a.id, a.attempt, a.patch_applied, coalesce(v.success, false),
			coalesce(to_json(v.failing_tests)::VARCHAR, '[]')
		FROM run_attempts a JOIN task_runs t ON t.id = a.task_run_id LEFT JOIN validation_results v ON v.attempt_id = a.id
		ORDER BY a.id`, nil, func(rows *sql.Rows) error {
		var a LoggedAttempt
		if err := rows.Scan(&a.TaskID, &a.ID, &a.Attempt, &a.Applied, &a.TestsPassed, &a.FailingTests); err != nil {
			return err
		}
		return fn(a)
	})
}

// EachEvalScore hands fn the eval's verdict (correct or not) per stage of
// every run an eval ran, by the run's task id.
func EachEvalScore(ctx context.Context, q Querier, fn func(run, stage string, correct bool) error) error {
	return eachRow(ctx, q, "read the eval scores", `SELECT t.task_id, s.stage, s.value FROM eval_results s
		JOIN eval_tasks e ON e.eval_run_id = s.eval_run_id AND e.task_id = s.task_id
		JOIN task_runs t ON t.id = e.task_run_id WHERE s.metric = 'correct'`, nil, func(rows *sql.Rows) error {
		var run, stage string
		var v float64
		if err := rows.Scan(&run, &stage, &v); err != nil {
			return err
		}
		return fn(run, stage, v == 1)
	})
}

// LoggedCall is a logged model call: the exact prompt and the answer.
type LoggedCall struct {
	ID                       int64
	TaskID, CallType         string
	System, User, Completion string
}

// EachLastLoggedCall hands fn the last answered call of a logged stage of
// each pass and call type of runs, among the calls with ids lo to hi.
func EachLastLoggedCall(ctx context.Context, q Querier, lo, hi int64, runs []string, fn func(LoggedCall) error) error {
	return eachRow(ctx, q, "read the logged calls", `SELECT id, task_id, call_type, coalesce(system_prompt, ''), prompt, response
		FROM retrieval_llm_calls
		WHERE id BETWEEN ? AND ? AND `+loggedCallsOf()+`
			AND split_part(task_id, ':', 1) IN (SELECT unnest(?::VARCHAR[]))
		QUALIFY row_number() OVER (PARTITION BY task_id, call_type ORDER BY id DESC) = 1`, []any{lo, hi, runs},
		func(rows *sql.Rows) error {
			var c LoggedCall
			if err := rows.Scan(&c.ID, &c.TaskID, &c.CallType, &c.System, &c.User, &c.Completion); err != nil {
				return err
			}
			return fn(c)
		})
}

// eachRow runs query and hands fn each row; the rows are closed before it
// returns. The query's errors are wrapped with what; fn's are returned as
// they are.
func eachRow(ctx context.Context, q Querier, what, query string, args []any, fn func(*sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	for rows.Next() {
		if err := fn(rows); err != nil {
			rows.Close()
			return err
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
