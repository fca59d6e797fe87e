package kb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// RunAttempt is one implement attempt (raw.run_attempts).
type RunAttempt struct {
	TaskRunID                      int64
	Attempt                        int
	PromptTokens, CompletionTokens *int
	Latency                        time.Duration
	RawResponse                    string
	PatchApplied                   bool
	At                             time.Time
}

// Validation is one run of a repository's commands after an attempt
// (raw.validation_results): Success is the test command's verdict.
type Validation struct {
	Success                              bool
	TestOutput, LintOutput, TypeCheckOut string
	FailingTests                         []string
}

// QueryExecer reads and writes (a *sql.Conn, a *sql.DB).
type QueryExecer interface {
	Querier
	Execer
}

// RecordAttempt appends an attempt, its raw answer bounded to
// MaxAttemptBytes, and, when the commands ran, its validation; it returns
// the attempt's id.
func RecordAttempt(ctx context.Context, q QueryExecer, a RunAttempt, v *Validation) (int64, error) {
	var id int64
	if err := q.QueryRowContext(ctx, `INSERT INTO run_attempts (task_run_id, attempt, prompt_tokens, completion_tokens,
		latency_ms, raw_response, patch_applied, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		a.TaskRunID, a.Attempt, a.PromptTokens, a.CompletionTokens, a.Latency.Milliseconds(), Bound(a.RawResponse, MaxAttemptBytes), a.PatchApplied, a.At).Scan(&id); err != nil {
		return 0, fmt.Errorf("record attempt %d of task run %d: %w", a.Attempt, a.TaskRunID, err)
	}
	if v == nil {
		return id, nil
	}
	failing := v.FailingTests
	if failing == nil {
		failing = []string{}
	}
	if _, err := q.ExecContext(ctx, `INSERT INTO validation_results (attempt_id, success, test_output, lint_output, type_check_output, failing_tests)
		VALUES (?, ?, ?, nullif(?, ''), nullif(?, ''), ?)`, id, v.Success, v.TestOutput, v.LintOutput, v.TypeCheckOut, failing); err != nil {
		return 0, fmt.Errorf("record validation of attempt %d: %w", id, err)
	}
	return id, nil
}

// OrchestratorRun is one cra solve run's row (raw.orchestrator_runs).
type OrchestratorRun struct {
	TaskID, RepoPath, Task string
	Started                time.Time
}

// OrchestratorProgress is a run's counts and status, kept current.
type OrchestratorProgress struct {
	TotalParts, TotalSteps         int
	PartsCompleted, StepsCompleted int
	Status                         string // running, complete, partial, failed
	Completed                      *time.Time
}

// BeginOrchestratorRun records a run as running and returns its id; a
// resumed run finds its row again.
func BeginOrchestratorRun(ctx context.Context, q Querier, r OrchestratorRun) (int64, error) {
	var id int64
	err := q.QueryRowContext(ctx, `SELECT id FROM orchestrator_runs WHERE task_id = ?`, r.TaskID).Scan(&id)
	if err == nil {
		return id, nil
	}
	if err := q.QueryRowContext(ctx, `INSERT INTO orchestrator_runs (task_id, repo_path, task_description, status, timestamp)
		VALUES (?, ?, ?, 'running', ?) RETURNING id`, r.TaskID, r.RepoPath, r.Task, r.Started).Scan(&id); err != nil {
		return 0, fmt.Errorf("record orchestrator run %s: %w", r.TaskID, err)
	}
	return id, nil
}

// UpdateOrchestratorRun writes a run's progress.
func UpdateOrchestratorRun(ctx context.Context, q Execer, id int64, p OrchestratorProgress) error {
	_, err := q.ExecContext(ctx, `UPDATE orchestrator_runs SET total_parts = ?, total_steps = ?, parts_completed = ?,
		steps_completed = ?, status = ?, completed_at = ? WHERE id = ?`,
		p.TotalParts, p.TotalSteps, p.PartsCompleted, p.StepsCompleted, p.Status, p.Completed, id)
	if err != nil {
		return fmt.Errorf("update orchestrator run %d: %w", id, err)
	}
	return nil
}

// OrchestratorPass links a run to one of its passes (raw.orchestrator_passes).
type OrchestratorPass struct {
	RunID, TaskRunID int64
	PassType         string // meta_plan, part_plan, step_implement, adjustment
	PartID, StepID   string
	Sequence         int
	At               time.Time
}

// AppendOrchestratorPass records a pass of a run.
func AppendOrchestratorPass(ctx context.Context, q Execer, p OrchestratorPass) error {
	_, err := q.ExecContext(ctx, `INSERT INTO orchestrator_passes (orchestrator_run_id, task_run_id, pass_type, part_id, step_id,
		sequence_order, timestamp) VALUES (?, ?, ?, nullif(?, ''), nullif(?, ''), ?, ?)`,
		p.RunID, p.TaskRunID, p.PassType, p.PartID, p.StepID, p.Sequence, p.At)
	if err != nil {
		return fmt.Errorf("record pass %s of orchestrator run %d: %w", p.PassType, p.RunID, err)
	}
	return nil
}

// ForgetUnfinishedPasses deletes every row of the passes of run runTaskID
// (task ids "<run>:…") that are not in kept: what a killed run wrote for
// the pass it was in, so that its resume ends with the rows a clean run
// writes. Nothing of a pass in kept is touched.
func ForgetUnfinishedPasses(ctx context.Context, q Execer, runTaskID string, kept []string) error {
	if kept == nil {
		kept = []string{}
	}
	gone := `(SELECT task_id FROM task_runs WHERE starts_with(task_id, ? || ':') AND NOT list_contains(?::VARCHAR[], task_id))`
	goneIDs := `(SELECT id FROM task_runs WHERE task_id IN ` + gone + `)`
	for _, stmt := range []string{
		`DELETE FROM validation_results WHERE attempt_id IN (SELECT id FROM run_attempts WHERE task_run_id IN ` + goneIDs + `)`,
		`DELETE FROM run_attempts WHERE task_run_id IN ` + goneIDs,
		`DELETE FROM orchestrator_passes WHERE task_run_id IN ` + goneIDs,
		`DELETE FROM retrieval_llm_calls WHERE task_id IN ` + gone,
		`DELETE FROM retrieval_decisions WHERE task_id IN ` + gone,
		`DELETE FROM session_archives WHERE task_id IN ` + gone,
		`DELETE FROM task_runs WHERE task_id IN ` + gone,
	} {
		if _, err := q.ExecContext(ctx, stmt, runTaskID, kept); err != nil {
			return fmt.Errorf("forget the unfinished passes of %s: %w", runTaskID, err)
		}
	}
	// Calls logged under a pass's sub-ids (the model's retries) go too.
	if _, err := q.ExecContext(ctx, `DELETE FROM retrieval_llm_calls WHERE starts_with(task_id, ? || ':')
		AND NOT list_contains(?::VARCHAR[], task_id) AND task_id NOT IN (SELECT task_id FROM task_runs)`, runTaskID, kept); err != nil {
		return fmt.Errorf("forget the unfinished passes of %s: %w", runTaskID, err)
	}
	return nil
}

// RemoveSession deletes a task's live session file (a pass being run
// again after a kill starts from nothing).
func RemoveSession(dir, taskID string) error {
	err := os.Remove(filepath.Join(SessionsDir(dir), taskID+".json"))
	if os.IsNotExist(err) {
		return nil
	}
	return err
}
