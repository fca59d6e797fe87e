package eval

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/internal/version"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// newRaw is an eval's writer of the raw store: one lease for the eval
// and every run in it, so the short writes of a task share one opening
// (and `cra sql` gets in while a model answers).
func newRaw(home string) *kb.Lease {
	return kb.NewLease(home, kb.Raw, kb.Options{Command: "cra eval", Wait: kb.BatchWait}, kb.DefaultIdle)
}

// runRow is an eval_runs row: an eval's name, oracle set and selection.
type runRow struct {
	ID       int64
	Name     string
	Oracle   []string
	Split    string
	Repos    []string
	Stages   []string
	Sample   int
	Seed     int64
	Models   map[string]string
	Status   string
	Started  time.Time
	Finished *time.Time
	// resumed: the eval existed before this run (some of its tasks may
	// have run without being recorded).
	resumed bool
}

// SelectionError is a resumed eval asked to run another selection.
type SelectionError struct{ Name, Was, Now string }

// Usage makes it a usage error (internal/usage): nothing was done, exit 2.
func (e *SelectionError) Usage() {}

func (e *SelectionError) Error() string {
	return fmt.Sprintf("eval %q ran %s; this asks for %s: give the same selection to resume it, or another --name", e.Name, e.Was, e.Now)
}

func (r runRow) selection() string {
	return fmt.Sprintf("--split %s --sample %d --seed %d --repos %v", r.Split, r.Sample, r.Seed, r.Repos)
}

// beginRun finds the eval of (name, oracle) or starts it: a re-run with
// the same name and oracle set resumes it, with the selection it began
// with.
func beginRun(ctx context.Context, w kb.Writer, want runRow) (runRow, error) {
	got, err := findRun(ctx, w.Conn, want.Name, want.Oracle)
	switch {
	case err == nil:
		if isAskRun(got.Stages) != isAskRun(want.Stages) {
			return got, usage.Errorf("eval %q is %s's: choose another --name", want.Name, commandOf(got.Stages))
		}
		if got.selection() != want.selection() {
			return got, &SelectionError{Name: want.Name, Was: got.selection(), Now: want.selection()}
		}
		_, err = w.Conn.ExecContext(ctx, `UPDATE eval_runs SET status = 'running', finished_at = NULL WHERE id = ?`, got.ID)
		got.Status, got.resumed = "running", true
		return got, err
	case !errors.Is(err, sql.ErrNoRows):
		return got, err
	}
	models, _ := json.Marshal(want.Models)
	var sample any
	if want.Sample > 0 {
		sample = want.Sample
	}
	err = w.Conn.QueryRowContext(ctx, `INSERT INTO eval_runs (name, oracle, split, repos, stages, sample, seed, models, cra_version, started_at, status)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running') RETURNING id`, want.Name, nonNil(want.Oracle), want.Split, nonNil(want.Repos),
		nonNil(want.Stages), sample, want.Seed, string(models), craVersion(), want.Started).Scan(&want.ID)
	want.Status = "running"
	return want, err
}

// isAskRun says an eval's scored stages are cra ask --eval's.
func isAskRun(stages []string) bool { return slices.Contains(stages, schema.StageAskClassify) }

// commandOf names the command that ran an eval of stages.
func commandOf(stages []string) string {
	if isAskRun(stages) {
		return "cra ask --eval"
	}
	return "cra eval"
}

// findRun is the eval_runs row of (name, oracle).
func findRun(ctx context.Context, q kb.Querier, name string, oracle []string) (runRow, error) {
	var r runRow
	var oracleV, repos, stages []any
	var sample sql.NullInt64
	var models string
	err := q.QueryRowContext(ctx, `SELECT id, name, oracle, split, repos, stages, sample, seed, models::VARCHAR, status, started_at
		FROM eval_runs WHERE name = ? AND oracle = ?::VARCHAR[] ORDER BY id LIMIT 1`, name, nonNil(oracle)).
		Scan(&r.ID, &r.Name, &oracleV, &r.Split, &repos, &stages, &sample, &r.Seed, &models, &r.Status, &r.Started)
	if err != nil {
		return r, err
	}
	r.Oracle, r.Repos, r.Stages = strs(oracleV), strs(repos), strs(stages)
	r.Sample = int(sample.Int64)
	_ = json.Unmarshal([]byte(models), &r.Models)
	return r, nil
}

// pendingTasks counts the tasks the eval of (name, oracle) has no row for:
// all of them when there is no such eval yet.
func pendingTasks(ctx context.Context, q kb.Querier, name string, oracle []string, tasks []Task) (int, error) {
	run, err := findRun(ctx, q, name, oracle)
	if errors.Is(err, sql.ErrNoRows) {
		return len(tasks), nil
	}
	if err != nil {
		return 0, err
	}
	done, err := doneTasks(ctx, q, run.ID)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, t := range tasks {
		if !done[t.ID] {
			n++
		}
	}
	return n, nil
}

// doneTasks are the tasks an eval has a row for (scored or failed to
// run): a resumed eval does not run them again.
func doneTasks(ctx context.Context, q kb.Querier, runID int64) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT task_id FROM eval_tasks WHERE eval_run_id = ?`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	done := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		done[id] = true
	}
	return done, rows.Err()
}

// taskRow is what an eval writes of one task, in one transaction.
type taskRow struct {
	Task      Task
	TaskRunID *int64
	Status    string // scored, error
	JudgedBy  string // how its end-to-end success was judged ("": it could not run)
	Error     string
	ModelMS   int64
	Elapsed   time.Duration
	Scores    []Score
}

// Task statuses.
const (
	TaskScored = "scored"
	TaskError  = "error"
)

var resultColumns = []string{"eval_run_id", "task_id", "task_run_id", "stage", "metric", "value"}

// writeTask records a task and its scores together, unless a racing
// process did already.
func writeTask(ctx context.Context, w kb.Writer, runID int64, t taskRow) error {
	return w.Tx(ctx, func() error {
		_, err := writeTaskRows(ctx, w, runID, t)
		return err
	})
}

// writeTaskRows writes a task's rows in the caller's transaction; written
// is false when a racing process wrote them already.
func writeTaskRows(ctx context.Context, w kb.Writer, runID int64, t taskRow) (written bool, err error) {
	var n int
	if err := w.Conn.QueryRowContext(ctx, `SELECT count(*) FROM eval_tasks WHERE eval_run_id = ? AND task_id = ?`, runID, t.Task.ID).Scan(&n); err != nil || n > 0 {
		return false, err
	}
	return true, insertTask(ctx, w, runID, t)
}

// insertTask writes a task's eval_tasks row and its eval_results.
func insertTask(ctx context.Context, w kb.Writer, runID int64, t taskRow) error {
	var errText any
	if t.Error != "" {
		errText = t.Error
	}
	if _, err := w.Conn.ExecContext(ctx, `INSERT INTO eval_tasks (eval_run_id, task_id, repo_path, task_run_id, status, error, model_ms, elapsed_ms, finished_at, judged_by)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, runID, t.Task.ID, t.Task.Repo, t.TaskRunID, t.Status, errText, t.ModelMS,
		t.Elapsed.Milliseconds(), time.Now().UTC(), nullIfEmpty(t.JudgedBy)); err != nil {
		return err
	}
	rows := make([][]driver.Value, len(t.Scores))
	for i, s := range t.Scores {
		var trID driver.Value
		if t.TaskRunID != nil {
			trID = *t.TaskRunID
		}
		rows[i] = []driver.Value{runID, t.Task.ID, trID, s.Stage, s.Metric, s.Value}
	}
	return w.AppendAll("eval_results", resultColumns, rows)
}

// finishRun sets an eval's status.
func finishRun(ctx context.Context, w kb.Writer, runID int64, status string) error {
	_, err := w.Conn.ExecContext(ctx, `UPDATE eval_runs SET status = ?, finished_at = ? WHERE id = ?`, status, time.Now().UTC(), runID)
	return err
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func strs(v []any) []string {
	out := make([]string, 0, len(v))
	for _, x := range v {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

func sortedCopy(s []string) []string {
	out := slices.Clone(nonNil(s))
	slices.Sort(out)
	return out
}

func craVersion() string { return version.String() }

// nullIfEmpty is s, or NULL when it is empty.
func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
