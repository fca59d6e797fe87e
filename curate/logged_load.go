package curate

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/kb/schema"
)

// callWindow is about how many logged calls one window of runs holds (and
// windowBytes about how much of their text): the calls' text is read a
// window at a time, so memory stays flat however
// many calls the store holds.
const callWindow = 8_000

// loggedRun is one finished cra solve run (an eval's runs are solve runs)
// with what curate needs of it: its passes, their answers and attempts,
// and, for an eval's run, the task it was scored on.
type loggedRun struct {
	id, repo  string
	first     int64 // its first and last answered call's id
	last      int64
	status    string // the orchestrator's: complete, partial, failed; "" for a --plan run
	success   bool
	finalDiff string
	evalTask  string // synthetic_tasks.id when an eval ran it
	evalRun   int64
	commit    string          // the eval task's commit
	scores    map[string]bool // stage → correct, from the eval's results
	passes    []loggedPass    // in order
	truth     *prompt.Truth   // the eval task's ground truth (read with the window)
}

// loggedPass is one pass of a run: its last answer per call type, and its
// implement attempt.
type loggedPass struct {
	taskID, passType, partID, stepID string
	seq                              int
	success                          bool
	calls                            map[string]*loggedCall // call type → the pass's last answered call
	attempt                          *loggedAttempt
}

// loggedCall is a logged model call: the exact prompt and the answer.
type loggedCall struct {
	id                       int64
	system, user, completion string
}

// loggedAttempt is an implement attempt and its tests.
type loggedAttempt struct {
	id           int64
	attempt      int
	applied      bool
	testsPassed  bool
	failingTests []string
}

func (a *loggedAttempt) passed() bool { return a != nil && a.applied && a.testsPassed }

// loggedWindows reads the finished runs of the selected repositories with
// their passes, attempts and eval scores (no text), grouped in windows of
// about callWindow answered calls, runs ordered by their first call so a
// window's calls are close together in the store.
func loggedWindows(ctx context.Context, conn *sql.Conn, opts Options) ([][]*loggedRun, error) {
	where, args := repoFilter(opts.Repos)
	where = strings.ReplaceAll(where, "k.repo_path", "t.repo_path")
	// A logged model call's call_type is its stage.
	types := "'" + strings.Join(schema.LoggedStages, "', '") + "'"
	rows, err := conn.QueryContext(ctx, `WITH c AS (
			SELECT split_part(task_id, ':', 1) AS run, count(*) AS calls, min(id) AS first, max(id) AS last,
				sum(strlen(prompt) + coalesce(strlen(response), 0) + coalesce(strlen(system_prompt), 0)) AS bytes FROM retrieval_llm_calls
			WHERE call_type IN (`+types+`) AND response IS NOT NULL AND error IS NULL AND model <> 'oracle' GROUP BY 1)
		SELECT c.run, t.repo_path, coalesce(o.status, ''), t.success, coalesce(t.final_diff, ''), coalesce(e.task_id, ''),
			coalesce(e.eval_run_id, 0), coalesce(k.commit, ''), c.calls, c.first, c.last, c.bytes
		FROM c JOIN task_runs t ON t.task_id = c.run
		LEFT JOIN orchestrator_runs o ON o.task_id = c.run
		LEFT JOIN eval_tasks e ON e.task_run_id = t.id
		LEFT JOIN synthetic_tasks k ON k.id = e.task_id
		WHERE t.success IS NOT NULL AND t.mode IN ('solve', ?) AND coalesce(o.status, '') <> 'running'`+where+`
		ORDER BY c.first`, append([]any{schema.StageImplement}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("read the logged runs: %w", err)
	}
	byID := map[string]*loggedRun{}
	var windows [][]*loggedRun
	var win []*loggedRun
	var n, size int64
	for rows.Next() {
		r := &loggedRun{scores: map[string]bool{}}
		var calls, bytes int64
		if err := rows.Scan(&r.id, &r.repo, &r.status, &r.success, &r.finalDiff, &r.evalTask, &r.evalRun, &r.commit, &calls, &r.first, &r.last, &bytes); err != nil {
			rows.Close()
			return nil, err
		}
		byID[r.id] = r
		win = append(win, r)
		n, size = n+calls, size+bytes
		if n >= callWindow || size >= windowBytes {
			windows, win, n, size = append(windows, win), nil, 0, 0
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, err
	}
	if len(win) > 0 {
		windows = append(windows, win)
	}
	if err := readPasses(ctx, conn, byID); err != nil {
		return nil, err
	}
	if err := readAttempts(ctx, conn, byID); err != nil {
		return nil, err
	}
	return windows, readScores(ctx, conn, byID)
}

// readPasses adds each run's passes: the orchestrator's, or the task runs
// under the run's id for a --plan run (which has no orchestrator rows: its
// one pass, of mode implement, is a step's).
func readPasses(ctx context.Context, conn *sql.Conn, runs map[string]*loggedRun) error {
	rows, err := conn.QueryContext(ctx, `SELECT split_part(t.task_id, ':', 1), t.task_id, coalesce(p.pass_type, ?),
			coalesce(p.part_id, ''), coalesce(p.step_id, ''), coalesce(p.sequence_order, 0), coalesce(t.success, false)
		FROM task_runs t LEFT JOIN orchestrator_passes p ON p.task_run_id = t.id
		WHERE contains(t.task_id, ':') AND (p.id IS NOT NULL OR t.mode = ?)
		ORDER BY 1, 6, t.id`, schema.PassStepImplement, schema.StageImplement)
	if err != nil {
		return fmt.Errorf("read the logged passes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var run string
		p := loggedPass{calls: map[string]*loggedCall{}}
		if err := rows.Scan(&run, &p.taskID, &p.passType, &p.partID, &p.stepID, &p.seq, &p.success); err != nil {
			return err
		}
		if r := runs[run]; r != nil {
			r.passes = append(r.passes, p)
		}
	}
	return rows.Err()
}

// readAttempts adds each implement pass's attempt and its tests.
func readAttempts(ctx context.Context, conn *sql.Conn, runs map[string]*loggedRun) error {
	rows, err := conn.QueryContext(ctx, `SELECT t.task_id, a.id, a.attempt, a.patch_applied, coalesce(v.success, false),
			coalesce(to_json(v.failing_tests)::VARCHAR, '[]')
		FROM run_attempts a JOIN task_runs t ON t.id = a.task_run_id LEFT JOIN validation_results v ON v.attempt_id = a.id
		ORDER BY a.id`)
	if err != nil {
		return fmt.Errorf("read the logged attempts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var pass, failing string
		a := &loggedAttempt{}
		if err := rows.Scan(&pass, &a.id, &a.attempt, &a.applied, &a.testsPassed, &failing); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(failing), &a.failingTests); err != nil {
			return err
		}
		r := runs[strings.SplitN(pass, ":", 2)[0]]
		if r == nil {
			continue
		}
		for i := range r.passes {
			if r.passes[i].taskID == pass {
				r.passes[i].attempt = a
			}
		}
	}
	return rows.Err()
}

// readScores adds the eval's verdict per stage to the runs an eval ran.
func readScores(ctx context.Context, conn *sql.Conn, runs map[string]*loggedRun) error {
	rows, err := conn.QueryContext(ctx, `SELECT t.task_id, s.stage, s.value FROM eval_results s
		JOIN eval_tasks e ON e.eval_run_id = s.eval_run_id AND e.task_id = s.task_id
		JOIN task_runs t ON t.id = e.task_run_id WHERE s.metric = 'correct'`)
	if err != nil {
		return fmt.Errorf("read the eval scores: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var run, stage string
		var v float64
		if err := rows.Scan(&run, &stage, &v); err != nil {
			return err
		}
		if r := runs[run]; r != nil {
			r.scores[stage] = v == 1
		}
	}
	return rows.Err()
}

// readWindow adds the window's text: each pass's last answered call per
// type, and the ground truth of the eval tasks among its runs.
func readWindow(ctx context.Context, conn *sql.Conn, win []*loggedRun) error {
	ids := make([]string, len(win))
	byID := map[string]*loggedRun{}
	var tasks []string
	lo, hi := win[0].first, win[0].last
	for i, r := range win {
		lo, hi = min(lo, r.first), max(hi, r.last)
		ids[i], byID[r.id] = r.id, r
		if r.evalTask != "" {
			tasks = append(tasks, r.evalTask)
		}
	}
	types := "'" + strings.Join(schema.LoggedStages, "', '") + "'"
	rows, err := conn.QueryContext(ctx, `SELECT id, task_id, call_type, coalesce(system_prompt, ''), prompt, response
		FROM retrieval_llm_calls
		WHERE id BETWEEN ? AND ? AND call_type IN (`+types+`) AND response IS NOT NULL AND error IS NULL AND model <> 'oracle'
			AND split_part(task_id, ':', 1) IN (SELECT unnest(?::VARCHAR[]))
		QUALIFY row_number() OVER (PARTITION BY task_id, call_type ORDER BY id DESC) = 1`, lo, hi, ids)
	if err != nil {
		return fmt.Errorf("read the logged calls: %w", err)
	}
	for rows.Next() {
		c := &loggedCall{}
		var pass, typ string
		if err := rows.Scan(&c.id, &pass, &typ, &c.system, &c.user, &c.completion); err != nil {
			rows.Close()
			return err
		}
		r := byID[strings.SplitN(pass, ":", 2)[0]]
		for i := range r.passes {
			if r.passes[i].taskID == pass {
				r.passes[i].calls[typ] = c
			}
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return err
	}
	if len(tasks) == 0 {
		return nil
	}
	rows, err = conn.QueryContext(ctx, `SELECT task_id, json_group_object(stage, target)::VARCHAR FROM synthetic_targets
		WHERE task_id IN (SELECT unnest(?::VARCHAR[])) GROUP BY 1`, tasks)
	if err != nil {
		return fmt.Errorf("read the eval tasks' ground truth: %w", err)
	}
	defer rows.Close()
	truths := map[string]*prompt.Truth{}
	for rows.Next() {
		var id, targets string
		if err := rows.Scan(&id, &targets); err != nil {
			return err
		}
		t := &prompt.Truth{}
		if err := json.Unmarshal([]byte(targets), t); err != nil {
			return fmt.Errorf("ground truth of task %s: %w", id, err)
		}
		truths[id] = t
	}
	for _, r := range win {
		r.truth = truths[r.evalTask]
	}
	return rows.Err()
}

// release drops a window's text once its examples are made.
func release(win []*loggedRun) {
	for _, r := range win {
		r.truth = nil
		for i := range r.passes {
			r.passes[i].calls = map[string]*loggedCall{}
		}
	}
}
