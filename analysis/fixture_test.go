package analysis

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// store builds a raw store the way `cra eval` and `cra solve` leave it,
// with plain SQL on the documented schema.
type store struct {
	t    *testing.T
	home string
	raw  *kb.Store
	// pending eval_tasks and eval_results rows, written by flush
	tasks, results []string
}

func newStore(t *testing.T) *store {
	home := storetest.Home(t)
	raw, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	return &store{t: t, home: home, raw: raw}
}

func (s *store) exec(q string, args ...any) {
	s.t.Helper()
	if _, err := s.raw.DB.Exec(q, args...); err != nil {
		s.t.Fatalf("%s: %v", q, err)
	}
}

// evalRun records an eval run and returns its id.
func (s *store) evalRun(name string, oracle []string, split string, day int) int64 {
	s.t.Helper()
	if oracle == nil {
		oracle = []string{}
	}
	var id int64
	at := time.Date(2026, 3, day, 9, 0, 0, 0, time.UTC)
	if err := s.raw.DB.QueryRow(`INSERT INTO eval_runs (name, oracle, split, repos, stages, sample, seed, models, cra_version,
		started_at, finished_at, status) VALUES (?, ?, ?, [], ['task_analysis', 'scope', 'precision', 'plan', 'implement'], NULL, 1,
		'{"reasoning": "qwen3:1.7b"}', 'test', ?, ?, 'complete') RETURNING id`, name, oracle, split, at, at.Add(time.Hour)).Scan(&id); err != nil {
		s.t.Fatal(err)
	}
	return id
}

// task queues one scored task: correct per stage (stages left out were
// not scored), end-to-end success, and extra metrics.
func (s *store) task(run int64, task, repo string, correct map[string]bool, success bool, extra map[string]map[string]float64) {
	s.tasks = append(s.tasks, fmt.Sprintf("(%d, '%s', '%s', 1, 'scored', NULL, 100, 200, TIMESTAMPTZ '2026-03-01 10:00:00+00')", run, task, repo))
	add := func(stage, metric string, v float64) {
		s.results = append(s.results, fmt.Sprintf("(%d, '%s', 1, '%s', '%s', %g)", run, task, stage, metric, v))
	}
	for stage, ok := range correct {
		add(stage, MetricCorrect, b01(ok))
	}
	for stage, ms := range extra {
		for m, v := range ms {
			add(stage, m, v)
		}
	}
	add(EndToEnd, MetricSuccess, b01(success))
}

func b01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// close writes the queued rows and closes the store.
func (s *store) close() {
	s.t.Helper()
	if len(s.tasks) > 0 {
		s.exec(`INSERT INTO eval_tasks (eval_run_id, task_id, repo_path, task_run_id, status, error, model_ms, elapsed_ms, finished_at) VALUES ` + strings.Join(s.tasks, ","))
		s.exec(`INSERT INTO eval_results (eval_run_id, task_id, task_run_id, stage, metric, value) VALUES ` + strings.Join(s.results, ","))
	}
	s.tasks, s.results = nil, nil
	if err := s.raw.Close(); err != nil {
		s.t.Fatal(err)
	}
}

// plantedTask is one task of the planted pattern: scope wrong in 40 % of
// tasks and failure following it (90 % of those fail, 15 % of the
// others); precision wrong in a third of every cell of scope × outcome,
// so it has nothing to do with failure; implement wrong exactly in the
// failed runs, as cra eval scores it (agent/eval/score.go): a definitional
// association, charged only the failures scope and precision got right.
type plantedTask struct {
	id, repo                         string
	scopeWrong, precWrong, implWrong bool
	failed                           bool
}

func plantedTasks() []plantedTask {
	var out []plantedTask
	i := 0
	cell := func(scopeWrong, failed bool, n int) {
		for k := range n {
			t := plantedTask{id: fmt.Sprintf("task-%03d", i), repo: fmt.Sprintf("/repos/r%d", i%8),
				scopeWrong: scopeWrong, failed: failed, precWrong: k%3 == 0}
			t.implWrong = failed
			out = append(out, t)
			i++
		}
	}
	cell(true, true, 72)
	cell(true, false, 8)
	cell(false, true, 18)
	cell(false, false, 102)
	return out
}

func (p plantedTask) correct() map[string]bool {
	return map[string]bool{"task_analysis": true, "scope": !p.scopeWrong, "precision": !p.precWrong, "plan": true, "implement": !p.implWrong}
}

func (p plantedTask) metrics() map[string]map[string]float64 {
	recall := 1.0
	if p.scopeWrong {
		recall = 0.5
	}
	return map[string]map[string]float64{"scope": {"recall": recall, "f1": recall * 0.9}, "precision": {"macro_f1": 0.8 - 0.3*b01(p.precWrong)}}
}

// solveRuns logs 12 finished solve runs, a third failed: scope dropped
// the file their final diff touched in each failed run, and every other
// run needed a second attempt at its step.
func (s *store) solveRuns() {
	s.t.Helper()
	cur, err := kb.Open(context.Background(), s.home, kb.Curated, kb.Options{Write: true})
	if err != nil {
		s.t.Fatal(err)
	}
	if _, err := cur.DB.Exec(`INSERT INTO files (id, repo_id, path, language, content_hash, size_bytes) VALUES (1, 1, 'a.py', 'python', 'h', 1)`); err != nil {
		s.t.Fatal(err)
	}
	cur.Close()
	s.exec(`CREATE TEMP TABLE solved AS SELECT i, 'solve-' || i AS run, i % 3 <> 0 AS ok FROM range(12) t(i)`)
	s.exec(`INSERT INTO task_runs (id, task_id, repo_path, mode, execute_model, context_window, reserved_tokens, stages, success, final_diff, timestamp)
		SELECT 1000 + i, run, '/repos/r0', 'solve', 'm', 1, 1, [], ok, 'diff --git a/a.py b/a.py' || chr(10), TIMESTAMPTZ '2026-03-05 00:00:00+00' FROM solved
		UNION ALL SELECT 2000 + i, run || ':impl', '/repos/r0', 'implement', 'm', 1, 1, [], ok, NULL, TIMESTAMPTZ '2026-03-05 00:00:00+00' FROM solved`)
	s.exec(`INSERT INTO orchestrator_runs (id, task_id, repo_path, task_description, status, timestamp)
		SELECT 1 + i, run, '/repos/r0', 't', CASE WHEN ok THEN 'complete' ELSE 'failed' END, TIMESTAMPTZ '2026-03-05 00:00:00+00' FROM solved`)
	s.exec(`INSERT INTO orchestrator_passes (orchestrator_run_id, task_run_id, pass_type, sequence_order, timestamp)
		SELECT 1 + i, 2000 + i, 'step_implement', 1, now() FROM solved`)
	s.exec(`INSERT INTO run_attempts (task_run_id, attempt, latency_ms, raw_response, patch_applied, timestamp)
		SELECT 2000 + i, a, 1, 'r', true, now() FROM solved, range(1, 3) r(a) WHERE a = 1 OR i % 2 = 0`)
	s.exec(`INSERT INTO retrieval_decisions (task_id, stage, file_id, included, timestamp) SELECT run || ':impl', 'scope', 1, ok, now() FROM solved`)
}

// plantedStore holds two plain runs of the planted pattern (an earlier,
// smaller one for the trend) and, with oracle, oracle runs of scope and
// of precision on the same tasks.
func plantedStore(t *testing.T, oracle bool) string {
	s := newStore(t)
	early := s.evalRun("nightly", nil, "validation", 1)
	for i, p := range plantedTasks() {
		if i%4 == 0 {
			s.task(early, p.id, p.repo, p.correct(), !p.failed, nil)
		}
	}
	plain := s.evalRun("nightly", nil, "validation", 8)
	for _, p := range plantedTasks() {
		s.task(plain, p.id, p.repo, p.correct(), !p.failed, p.metrics())
	}
	s.solveRuns()
	if oracle {
		scope := s.evalRun("nightly", []string{"scope"}, "validation", 9)
		prec := s.evalRun("nightly", []string{"precision"}, "validation", 9)
		for k, p := range plantedTasks() {
			// With scope replaced by ground truth, a task fails as often as
			// the scope-right ones do (15 %, one in seven here).
			failed := p.failed
			if p.scopeWrong {
				failed = k%7 == 0
			}
			c := p.correct()
			c["scope"] = true
			s.task(scope, p.id, p.repo, c, !failed, nil)
			c = p.correct()
			c["precision"] = true
			s.task(prec, p.id, p.repo, c, !p.failed, nil)
		}
	}
	s.close()
	return s.home
}

// oneRepoStore holds the planted pattern's plain run with every task in
// one repository: what a first eval on one clone leaves.
func oneRepoStore(t *testing.T) string {
	s := newStore(t)
	plain := s.evalRun("nightly", nil, "validation", 8)
	for _, p := range plantedTasks() {
		s.task(plain, p.id, "/repos/only", p.correct(), !p.failed, p.metrics())
	}
	s.close()
	return s.home
}

// nullStore has stages wrong and runs failing with no relation at all:
// every stage is wrong in the same share of failed and succeeded runs,
// but implement, wrong exactly when the run failed, as cra eval scores it.
func nullStore(t *testing.T) string {
	s := newStore(t)
	run := s.evalRun("nightly", nil, "validation", 8)
	i := 0
	for _, failed := range []bool{true, false} {
		n := 120
		if failed {
			n = 80
		}
		for k := range n {
			c := map[string]bool{"task_analysis": true, "scope": k%3 != 0, "precision": k%4 != 0, "plan": k%5 != 0, "implement": !failed}
			s.task(run, fmt.Sprintf("task-%03d", i), fmt.Sprintf("/repos/r%d", i%6), c, !failed, nil)
			i++
		}
	}
	s.close()
	return s.home
}
