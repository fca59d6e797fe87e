package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cra-dev/cra/kb/schema"
)

// LogAnalysis is the read API over the run logs that `cra train-plan`
// analyses: evaluations scored against ground truth, logged solve runs,
// and what training data exists.
// It reads an Attached session (raw, and curated for the paths behind
// retrieval decisions' file ids) and never writes.
type LogAnalysis struct{ q Querier }

// NewLogAnalysis reads through q, a connection of an Attached session.
func NewLogAnalysis(q Querier) *LogAnalysis { return &LogAnalysis{q: q} }

// LogFilter narrows what LogAnalysis reads. Zero values select everything.
type LogFilter struct {
	Since time.Time // runs started at or after it
	Repos []string  // only these repositories (as stored)
	Evals []string  // only eval runs of these names (solve runs are not named)
}

func (f LogFilter) since() time.Time {
	if f.Since.IsZero() {
		return time.Unix(0, 0).UTC()
	}
	return f.Since
}

func (f LogFilter) repos() []string { return nonNil(f.Repos) }
func (f LogFilter) evals() []string { return nonNil(f.Evals) }

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// EvalRunInfo is one eval run (raw.eval_runs) with the number of tasks it
// scored.
type EvalRunInfo struct {
	ID        int64
	Name      string
	Oracle    []string // stages replaced by ground truth; empty for a plain run
	Split     string
	Status    string
	StartedAt time.Time
	Scored    int
}

// evalRunWhere selects eval runs r by the filter; its arguments follow.
// cra ask --eval's runs are never among them (askEvalRun): they score no
// pipeline stage and no end-to-end outcome, and the repository of every
// question would otherwise count as held out.
const evalRunWhere = `r.started_at >= ? AND (len(?::VARCHAR[]) = 0 OR list_contains(?::VARCHAR[], r.name)) AND NOT ` + askEvalRun

func (f LogFilter) evalRunArgs() []any { return []any{f.since(), f.evals(), f.evals()} }

// EvalRuns lists the eval runs the filter selects, oldest first.
func (l *LogAnalysis) EvalRuns(ctx context.Context, f LogFilter) ([]EvalRunInfo, error) {
	rows, err := l.q.QueryContext(ctx, `SELECT r.id, r.name, array_to_string(r.oracle, ','), r.split, r.status, r.started_at,
			(SELECT count(*) FROM eval_tasks t WHERE t.eval_run_id = r.id AND t.status = 'scored'
				AND (len(?::VARCHAR[]) = 0 OR list_contains(?::VARCHAR[], t.repo_path)))
		FROM eval_runs r WHERE `+evalRunWhere+` ORDER BY r.started_at, r.id`,
		append([]any{f.repos(), f.repos()}, f.evalRunArgs()...)...)
	if err != nil {
		return nil, fmt.Errorf("read eval runs: %w", err)
	}
	defer rows.Close()
	var out []EvalRunInfo
	for rows.Next() {
		var r EvalRunInfo
		var oracle string
		if err := rows.Scan(&r.ID, &r.Name, &oracle, &r.Split, &r.Status, &r.StartedAt, &r.Scored); err != nil {
			return nil, fmt.Errorf("read eval runs: %w", err)
		}
		r.Oracle = splitNonEmpty(oracle, ",")
		out = append(out, r)
	}
	return out, rows.Err()
}

// EvalNames lists the names of every eval run (cra ask --eval's aside), to
// tell a user who named one that does not exist which ones do.
func (l *LogAnalysis) EvalNames(ctx context.Context) ([]string, error) {
	return l.strings(ctx, `SELECT DISTINCT name FROM eval_runs r WHERE NOT `+askEvalRun+` ORDER BY 1`)
}

// KnownRepos lists the repositories eval tasks or solve runs were on.
func (l *LogAnalysis) KnownRepos(ctx context.Context) ([]string, error) {
	return l.strings(ctx, `SELECT repo_path FROM eval_tasks UNION SELECT repo_path FROM orchestrator_runs ORDER BY 1`)
}

// GateEvalPrefix begins the name of every eval the adapter gate runs
// (`cra adapters eval`: gate-NAME-vV-base-HASH and gate-NAME-vV-cand-HASH):
// agent/adapters names them with it, and train-plan leaves them out of its
// evidence unless the user names them.
const GateEvalPrefix = "gate-"

// Who answered a stage's calls in one eval task (EvalOutcome.Adapters),
// beside an adapter's NAME@VERSION. Neither can be an adapter's: a
// version's name always holds "@".
const (
	AnsweredBase = "base" // the base model: no adapter
	// AnsweredMixed: the stage's calls in the task were answered by more
	// than one (an adapter and the base model, or two adapters), as when
	// a stage was promoted or rolled back while the task ran.
	AnsweredMixed = "mixed"
)

// EvalOutcome is one task of one eval run, scored: every stage's metrics
// (end_to_end included) by stage and metric name, and who answered each
// stage's model calls.
type EvalOutcome struct {
	EvalRunID int64
	TaskID    string
	RepoPath  string
	Scores    map[string]map[string]float64 // stage → metric → value
	// Adapters is stage (the calls' call_type) → who answered its calls
	// in the task: "NAME@V", AnsweredBase or AnsweredMixed. A stage the
	// task made no model call for is absent: nothing answered it. Nil
	// when the task logged no call.
	Adapters map[string]string
}

// AnsweredBy is who answered stage's calls in the task, and whether the
// task called the stage at all.
func (o EvalOutcome) AnsweredBy(stage string) (string, bool) {
	a, ok := o.Adapters[stage]
	return a, ok
}

// Score is a stage's metric and whether the task has it.
func (o EvalOutcome) Score(stage, metric string) (float64, bool) {
	v, ok := o.Scores[stage][metric]
	return v, ok
}

// scoredTaskWhere selects the scored tasks t of the eval runs r the
// filter selects; its arguments are the filter's outcomeArgs.
const scoredTaskWhere = `t.status = 'scored' AND (len(?::VARCHAR[]) = 0 OR list_contains(?::VARCHAR[], t.repo_path)) AND ` + evalRunWhere

func (f LogFilter) outcomeArgs() []any {
	return append([]any{f.repos(), f.repos()}, f.evalRunArgs()...)
}

// EvalOutcomes reads the scored tasks of the eval runs the filter selects
// (tasks that failed to run for the infrastructure's sake are left out),
// ordered by run and task, with who answered each stage.
func (l *LogAnalysis) EvalOutcomes(ctx context.Context, f LogFilter) ([]EvalOutcome, error) {
	var out []EvalOutcome
	at := map[evalTaskKey]int{}
	err := l.each(ctx, `SELECT t.eval_run_id, t.task_id, t.repo_path, e.stage, e.metric, e.value
		FROM eval_runs r
		JOIN eval_tasks t ON t.eval_run_id = r.id
		JOIN eval_results e ON e.eval_run_id = t.eval_run_id AND e.task_id = t.task_id
		WHERE `+scoredTaskWhere+`
		ORDER BY t.eval_run_id, t.task_id, e.stage, e.metric`, f.outcomeArgs(), func(rows *sql.Rows) error {
		var run int64
		var task, repo, stage, metric string
		var v float64
		if err := rows.Scan(&run, &task, &repo, &stage, &metric, &v); err != nil {
			return err
		}
		if n := len(out); n == 0 || out[n-1].EvalRunID != run || out[n-1].TaskID != task {
			at[evalTaskKey{run, task}] = n
			out = append(out, EvalOutcome{EvalRunID: run, TaskID: task, RepoPath: repo, Scores: map[string]map[string]float64{}})
		}
		o := &out[len(out)-1]
		if o.Scores[stage] == nil {
			o.Scores[stage] = map[string]float64{}
		}
		o.Scores[stage][metric] = v
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read eval results: %w", err)
	}
	if len(out) == 0 {
		return out, nil
	}
	// A reader does not migrate: a store from before the adapter columns
	// has only the base model's calls.
	if has, err := l.has(ctx, "retrieval_llm_calls", "adapter"); err != nil || !has {
		return out, err
	}
	if err := l.answeredBy(ctx, f, out, at); err != nil {
		return nil, fmt.Errorf("read which adapters answered the eval tasks: %w", err)
	}
	return out, nil
}

// answererOf is who answered a group of calls c of one stage: the
// adapter's NAME@V, AnsweredBase, or AnsweredMixed for more than one.
const answererOf = `CASE WHEN count(DISTINCT ` + answeredBy + `) > 1 THEN '` + AnsweredMixed + `' ELSE min(` + answeredBy + `) END`

const answeredBy = `coalesce(c.adapter || '@' || CAST(c.adapter_version AS VARCHAR), '` + AnsweredBase + `')`

type evalTaskKey struct {
	run  int64
	task string
}

// answeredBy fills each outcome's Adapters, in one query over the calls
// of every selected task: an eval task's calls are those of its run
// (task_run_id), whose own and whose passes' task ids begin with the
// run's ("<run>" and "<run>:<pass>"). Rows that are not a model's answer
// (assembly, refinement merge) have no adapter to tell.
func (l *LogAnalysis) answeredBy(ctx context.Context, f LogFilter, out []EvalOutcome, at map[evalTaskKey]int) error {
	return l.each(ctx, `SELECT t.eval_run_id, t.task_id, c.call_type, `+answererOf+`
		FROM eval_runs r
		JOIN eval_tasks t ON t.eval_run_id = r.id
		JOIN task_runs k ON k.id = t.task_run_id
		JOIN retrieval_llm_calls c ON split_part(c.task_id, ':', 1) = k.task_id
		WHERE `+scoredTaskWhere+` AND c.call_type NOT IN (?, ?)
		GROUP BY ALL`, append(f.outcomeArgs(), schema.CallAssembly, schema.CallRefinementMerge), func(rows *sql.Rows) error {
		var k evalTaskKey
		var stage, by string
		if err := rows.Scan(&k.run, &k.task, &stage, &by); err != nil {
			return err
		}
		i, ok := at[k]
		if !ok {
			return nil // scored, but with no result row
		}
		out[i].Adapters = answered(out[i].Adapters, stage, by)
		return nil
	})
}

// answered is m (made when nil) with stage answered by by.
func answered(m map[string]string, stage, by string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[stage] = by
	return m
}

// LatestGates is LatestAdapterGates: the latest gate verdict of every
// adapter version, by NAME@V; none on a store from before the registry.
func (l *LogAnalysis) LatestGates(ctx context.Context) (map[string]GateRow, error) {
	if has, err := l.has(ctx, "adapter_gates", ""); err != nil || !has {
		return map[string]GateRow{}, err
	}
	return LatestAdapterGates(ctx, l.q)
}

// has reports whether the raw store has table (and its column, when
// column is not ""): a reader sees the schema as the last writer left it.
func (l *LogAnalysis) has(ctx context.Context, table, column string) (bool, error) {
	var n int
	err := l.q.QueryRowContext(ctx, `SELECT count(*) FROM duckdb_columns() WHERE database_name = 'raw' AND table_name = ?
		AND (? = '' OR column_name = ?)`, table, column, column).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("read the raw store's schema: %w", err)
	}
	return n > 0, nil
}

// SolvePass is one pass of a solve run.
type SolvePass struct {
	Type     string // meta_plan, part_plan, step_implement, adjustment
	Success  bool
	Attempts int // implement attempts (run_attempts) of the pass
}

// SolveRun is a finished `cra solve` run as the logs tell it, without
// ground truth: its outcome, the files its final diff touched, the files
// scope left out, its passes, and who answered each stage.
type SolveRun struct {
	TaskID    string
	RepoPath  string
	Status    string // complete, partial, failed
	Success   bool   // status complete
	StartedAt time.Time
	Touched   []string // paths of the final diff
	Dropped   []string // paths scope left out in a pass (kept by none of that pass's decisions)
	Passes    []SolvePass
	Adapters  map[string]string // as EvalOutcome.Adapters
}

// solveWhere selects the finished solve runs o the filter selects; an
// eval's runs are its tasks' (EvalOutcomes), not the user's solve runs.
const solveWhere = `o.status <> 'running' AND o.timestamp >= ? AND (len(?::VARCHAR[]) = 0 OR list_contains(?::VARCHAR[], o.repo_path))
	AND o.task_id NOT IN (SELECT k.task_id FROM eval_tasks e JOIN task_runs k ON k.id = e.task_run_id)`

func (f LogFilter) solveArgs() []any { return []any{f.since(), f.repos(), f.repos()} }

// SolveRuns reads the finished solve runs the filter selects (its Evals do
// not apply), oldest first.
func (l *LogAnalysis) SolveRuns(ctx context.Context, f LogFilter) ([]SolveRun, error) {
	rows, err := l.q.QueryContext(ctx, `SELECT o.task_id, o.repo_path, o.status, o.timestamp,
			array_to_string(regexp_extract_all(coalesce(t.final_diff, ''), '(?m)^diff --git a/(\S+) b/', 1), chr(10))
		FROM orchestrator_runs o LEFT JOIN task_runs t ON t.task_id = o.task_id
		WHERE `+solveWhere+` ORDER BY o.timestamp, o.task_id`, f.solveArgs()...)
	if err != nil {
		return nil, fmt.Errorf("read solve runs: %w", err)
	}
	var out []SolveRun
	at := map[string]int{}
	for rows.Next() {
		var r SolveRun
		var touched string
		if err := rows.Scan(&r.TaskID, &r.RepoPath, &r.Status, &r.StartedAt, &touched); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read solve runs: %w", err)
		}
		r.Success = r.Status == "complete"
		r.Touched = splitNonEmpty(touched, "\n")
		at[r.TaskID] = len(out)
		out = append(out, r)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, nil
	}
	err = l.each(ctx, `SELECT o.task_id, p.pass_type, coalesce(t.success, false),
			(SELECT count(*) FROM run_attempts a WHERE a.task_run_id = t.id)
		FROM orchestrator_runs o JOIN orchestrator_passes p ON p.orchestrator_run_id = o.id
		JOIN task_runs t ON t.id = p.task_run_id
		WHERE `+solveWhere+` ORDER BY o.task_id, p.sequence_order`, f.solveArgs(), func(rows *sql.Rows) error {
		var run string
		var p SolvePass
		if err := rows.Scan(&run, &p.Type, &p.Success, &p.Attempts); err != nil {
			return err
		}
		if i, ok := at[run]; ok {
			out[i].Passes = append(out[i].Passes, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read solve passes: %w", err)
	}
	// Decisions name curated file ids; the path is the knowledge base's.
	err = l.each(ctx, `SELECT DISTINCT run, path FROM (
			SELECT o.task_id AS run, d.task_id AS pass, f.path
			FROM orchestrator_runs o
			JOIN retrieval_decisions d ON starts_with(d.task_id, o.task_id || ':')
			JOIN curated.files f ON f.id = d.file_id
			WHERE d.stage = ? AND `+solveWhere+`
			GROUP BY ALL HAVING NOT bool_or(d.included))
		ORDER BY run, path`, append([]any{schema.StageScope}, f.solveArgs()...), func(rows *sql.Rows) error {
		var run, path string
		if err := rows.Scan(&run, &path); err != nil {
			return err
		}
		if i, ok := at[run]; ok {
			out[i].Dropped = append(out[i].Dropped, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read scope decisions of solve runs: %w", err)
	}
	if has, err := l.has(ctx, "retrieval_llm_calls", "adapter"); err != nil || !has {
		return out, err
	}
	err = l.each(ctx, `SELECT o.task_id, c.call_type, `+answererOf+`
		FROM orchestrator_runs o JOIN retrieval_llm_calls c ON split_part(c.task_id, ':', 1) = o.task_id
		WHERE `+solveWhere+` AND c.call_type NOT IN (?, ?)
		GROUP BY ALL`, append(f.solveArgs(), schema.CallAssembly, schema.CallRefinementMerge), func(rows *sql.Rows) error {
		var run, stage, by string
		if err := rows.Scan(&run, &stage, &by); err != nil {
			return err
		}
		if i, ok := at[run]; ok {
			out[i].Adapters = answered(out[i].Adapters, stage, by)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read which adapters answered the solve runs: %w", err)
	}
	return out, nil
}

// StageData counts the training examples each source could give a stage,
// and the part of each that the split rule puts in train.
type StageData struct {
	Synthetic      int // synthetic_targets of the stage
	Logged         int // answered model calls of the stage, outside evaluations
	LoggedPositive int // ... of runs that succeeded
	Distilled      int // distinct distilled targets in training_examples
	// The same counts in the train split: synthetic by repository and
	// commit, logged by repository and run (by the SplitRule), distilled by
	// the split stored with it; a held-out repository has none.
	SyntheticTrain      int
	LoggedTrain         int
	LoggedPositiveTrain int
	DistilledTrain      int
}

// DataAvailable counts, per stage, the examples each source holds for the
// filter's repositories, and how many of them rule, as curate-data would
// apply it, puts in train.
func (l *LogAnalysis) DataAvailable(ctx context.Context, f LogFilter, rule SplitRule) (map[string]StageData, error) {
	out := map[string]StageData{}
	// Each query gives stage, repository, split unit (commit, run) and two
	// counts; train says whether the unit trains.
	add := func(q string, train func(repo, unit string) bool, set func(d *StageData, n, m int, train bool)) error {
		return l.each(ctx, q, []any{f.repos(), f.repos()}, func(rows *sql.Rows) error {
			var stage, repo, unit string
			var n, m int
			if err := rows.Scan(&stage, &repo, &unit, &n, &m); err != nil {
				return err
			}
			d := out[stage]
			set(&d, n, m, train(repo, unit))
			out[stage] = d
			return nil
		})
	}
	byHash := func(repo, unit string) bool { return rule.Split(repo, unit) == SplitTrain }
	const repoIn = `(len(?::VARCHAR[]) = 0 OR list_contains(?::VARCHAR[], repo_path))`
	if err := add(`SELECT stage, repo_path, commit, count(*), 0 FROM synthetic_targets WHERE `+repoIn+` GROUP BY ALL`, byHash,
		func(d *StageData, n, _ int, train bool) {
			d.Synthetic += n
			if train {
				d.SyntheticTrain += n
			}
		}); err != nil {
		return nil, fmt.Errorf("count synthetic targets: %w", err)
	}
	// A call belongs to the run named by its task id's first segment;
	// calls of evaluated runs are held out, never training data.
	if err := add(`SELECT c.call_type, t.repo_path, t.task_id, count(*), count(*) FILTER (WHERE t.success) FROM retrieval_llm_calls c
			JOIN (SELECT id, task_id, success, repo_path, mode FROM task_runs) t ON t.task_id = split_part(c.task_id, ':', 1)
			WHERE c.error IS NULL AND c.response IS NOT NULL AND t.mode <> '`+ModeTrainPlan+`'
				AND t.id NOT IN (SELECT task_run_id FROM eval_tasks WHERE task_run_id IS NOT NULL) AND `+repoIn+`
			GROUP BY ALL`, byHash,
		func(d *StageData, n, m int, train bool) {
			d.Logged, d.LoggedPositive = d.Logged+n, d.LoggedPositive+m
			if train {
				d.LoggedTrain, d.LoggedPositiveTrain = d.LoggedTrain+n, d.LoggedPositiveTrain+m
			}
		}); err != nil {
		return nil, fmt.Errorf("count logged calls: %w", err)
	}
	// Distilled examples keep the split they were stored with; the unit
	// column carries it.
	stored := func(repo, split string) bool { return split == SplitTrain && !rule.HeldOutRepo(repo) }
	if err := add(`SELECT stage, repo_path, split, count(DISTINCT target_id), 0 FROM training_examples
			WHERE source = 'distilled' AND `+repoIn+` GROUP BY ALL`, stored,
		func(d *StageData, n, _ int, train bool) {
			d.Distilled += n
			if train {
				d.DistilledTrain += n
			}
		}); err != nil {
		return nil, fmt.Errorf("count distilled examples: %w", err)
	}
	return out, nil
}

// EvaluatedTask is a synthetic task an eval ran, with the --split of that
// eval: what a training plan must keep out of train.
type EvaluatedTask struct {
	Repo, Commit, Split string
}

// EvaluatedTasks lists every synthetic task any eval ran (scored or not,
// whatever the filter: curate-data refuses a train split holding any of
// them), once per eval split.
func (l *LogAnalysis) EvaluatedTasks(ctx context.Context) ([]EvaluatedTask, error) {
	var out []EvaluatedTask
	err := l.each(ctx, `SELECT DISTINCT k.repo_path, k.commit, r.split FROM eval_tasks e
			JOIN synthetic_tasks k ON k.id = e.task_id JOIN eval_runs r ON r.id = e.eval_run_id ORDER BY ALL`, nil,
		func(rows *sql.Rows) error {
			var t EvaluatedTask
			if err := rows.Scan(&t.Repo, &t.Commit, &t.Split); err != nil {
				return err
			}
			out = append(out, t)
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("read the evaluated tasks: %w", err)
	}
	return out, nil
}

func (l *LogAnalysis) each(ctx context.Context, q string, args []any, fn func(*sql.Rows) error) error {
	rows, err := l.q.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (l *LogAnalysis) strings(ctx context.Context, q string) ([]string, error) {
	var out []string
	err := l.each(ctx, q, nil, func(rows *sql.Rows) error {
		var s string
		if err := rows.Scan(&s); err != nil {
			return err
		}
		out = append(out, s)
		return nil
	})
	return out, err
}

func splitNonEmpty(s, sep string) []string {
	var out []string
	for _, p := range strings.Split(s, sep) {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}
