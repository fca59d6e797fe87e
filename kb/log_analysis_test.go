package kb_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// logHome writes, with plain SQL on the documented schema, two eval runs
// (one with scope as an oracle, an older one named differently), two
// finished solve runs and one still running, decisions naming curated
// files, and training data of each source.
func logHome(t *testing.T) string {
	home := storetest.Home(t)
	exec := func(kind kb.Kind, q string) {
		t.Helper()
		s, err := kb.Open(context.Background(), home, kind, kb.Options{Write: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.DB.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(kb.Curated, `INSERT INTO files (id, repo_id, path, language, content_hash, size_bytes) VALUES
		(10, 1, 'app/store.py', 'python', 'h1', 10), (11, 1, 'app/api.py', 'python', 'h2', 10), (12, 1, 'app/util.py', 'python', 'h3', 10)`)
	exec(kb.Raw, `
		INSERT INTO eval_runs (name, oracle, split, repos, stages, seed, models, started_at, status) VALUES
			('old', [], 'validation', [], ['scope'], 1, '{}', TIMESTAMPTZ '2026-01-01 00:00:00+00', 'complete'),
			('nightly', ['scope'], 'holdout', ['/b'], ['scope'], 1, '{}', TIMESTAMPTZ '2026-03-01 00:00:00+00', 'complete');
		INSERT INTO eval_tasks (eval_run_id, task_id, repo_path, task_run_id, status, finished_at) VALUES
			(1, 't1', '/a', 100, 'scored', now()), (1, 't2', '/b', NULL, 'error', now()),
			(2, 't1', '/a', NULL, 'scored', now()), (2, 't3', '/b', NULL, 'scored', now());
		INSERT INTO eval_results (eval_run_id, task_id, task_run_id, stage, metric, value) VALUES
			(1, 't1', 100, 'scope', 'correct', 0), (1, 't1', 100, 'scope', 'recall', 0.5), (1, 't1', 100, 'end_to_end', 'success', 0),
			(2, 't1', NULL, 'scope', 'correct', 1), (2, 't1', NULL, 'end_to_end', 'success', 1),
			(2, 't3', NULL, 'end_to_end', 'success', 0);
		INSERT INTO task_runs (id, task_id, repo_path, mode, execute_model, context_window, reserved_tokens, stages, success, final_diff, timestamp) VALUES
			(1, 'solve-1', '/a', 'solve', 'm', 1, 1, [], false,
				'diff --git a/app/store.py b/app/store.py' || chr(10) || '--- a/app/store.py' || chr(10) || '+++ b/app/store.py' || chr(10) ||
				'diff --git a/app/api.py b/app/api.py' || chr(10), TIMESTAMPTZ '2026-03-02 00:00:00+00'),
			(2, 'solve-1:impl:p1:s1', '/a', 'implement', 'm', 1, 1, [], false, NULL, TIMESTAMPTZ '2026-03-02 00:00:00+00'),
			(3, 'solve-1:adjust', '/a', 'adjustment', 'm', 1, 1, [], true, NULL, TIMESTAMPTZ '2026-03-02 00:00:00+00'),
			(4, 'solve-2', '/b', 'solve', 'm', 1, 1, [], true, '', TIMESTAMPTZ '2026-03-03 00:00:00+00'),
			(5, 'plan-1', '/a', 'plan', 'm', 1, 1, [], true, NULL, TIMESTAMPTZ '2026-03-03 00:00:00+00'),
			(100, 'eval-run-t1', '/a', 'eval', 'm', 1, 1, [], false, NULL, TIMESTAMPTZ '2026-01-01 00:00:00+00');
		INSERT INTO orchestrator_runs (id, task_id, repo_path, task_description, status, timestamp) VALUES
			(1, 'solve-1', '/a', 'x', 'failed', TIMESTAMPTZ '2026-03-02 00:00:00+00'),
			(2, 'solve-2', '/b', 'y', 'complete', TIMESTAMPTZ '2026-03-03 00:00:00+00'),
			(3, 'solve-3', '/b', 'z', 'running', TIMESTAMPTZ '2026-03-04 00:00:00+00');
		INSERT INTO orchestrator_passes (orchestrator_run_id, task_run_id, pass_type, sequence_order, timestamp) VALUES
			(1, 2, 'step_implement', 1, now()), (1, 3, 'adjustment', 2, now());
		INSERT INTO run_attempts (task_run_id, attempt, latency_ms, raw_response, patch_applied, timestamp) VALUES
			(2, 1, 1, 'r', true, now()), (2, 2, 1, 'r', true, now());
		-- scope left app/store.py out of the step (it is in the diff) and
		-- kept app/api.py in one decision though another dropped it.
		INSERT INTO retrieval_decisions (task_id, stage, file_id, included, timestamp) VALUES
			('solve-1:impl:p1:s1', 'scope', 10, false, now()), ('solve-1:impl:p1:s1', 'scope', 11, true, now()),
			('solve-1:impl:p1:s1', 'scope', 11, false, now()), ('solve-1:impl:p1:s1', 'precision', 12, false, now()),
			('plan-1', 'scope', 12, false, now());
		INSERT INTO retrieval_llm_calls (task_id, call_type, stage_name, model, prompt, response, error, latency_ms, timestamp) VALUES
			('solve-1:impl:p1:s1', 'scope', 'scope', 'm', 'p', 'r', NULL, 1, now()),
			('solve-2:impl:p1:s1', 'scope', 'scope', 'm', 'p', 'r', NULL, 1, now()),
			('plan-1', 'scope', 'scope', 'm', 'p', 'r', NULL, 1, now()),
			('plan-1', 'plan', 'plan', 'm', 'p', NULL, 'timeout', 1, now()),
			('eval-run-t1', 'scope', 'scope', 'm', 'p', 'r', NULL, 1, now());
		INSERT INTO synthetic_tasks (id, run_id, repo_path, commit, parent, author, committed_at, message, task, files_changed, insertions, deletions, created_at) VALUES
			('t1', 1, '/a', 'c1', 'c0', 'x', now(), 'm', 'm', 1, 1, 1, now()), ('t2', 1, '/b', 'c2', 'c1', 'x', now(), 'm', 'm', 1, 1, 1, now());
		INSERT INTO synthetic_targets (id, task_id, repo_path, commit, stage, target, created_at) VALUES
			('s1', 't1', '/a', 'c1', 'scope', '{}', now()), ('s2', 't3', '/b', 'c3', 'scope', '{}', now()), ('s3', 't3', '/b', 'c3', 'plan', '{}', now());
		INSERT INTO training_examples (id, dataset, stage, source, split, label, repo_path, target_id, messages, prompt_tokens, completion_tokens, created_at, version) VALUES
			('e1', 'd', 'scope', 'distilled', 'train', 'positive', '/a', 's1', [], 1, 1, now(), 1),
			('e2', 'd', 'scope', 'distilled', 'train', 'positive', '/a', 's1', [], 1, 1, now(), 2);`)
	return home
}

func withLogs(t *testing.T, home string, fn func(*kb.LogAnalysis)) {
	t.Helper()
	a, err := kb.Attach(context.Background(), home, false, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	fn(kb.NewLogAnalysis(a.Conn))
}

func TestLogAnalysisEval(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	withLogs(t, logHome(t), func(la *kb.LogAnalysis) {
		runs, err := la.EvalRuns(ctx, kb.LogFilter{})
		if err != nil || len(runs) != 2 {
			t.Fatalf("runs %+v, %v", runs, err)
		}
		if r := runs[1]; r.Name != "nightly" || !reflect.DeepEqual(r.Oracle, []string{"scope"}) || r.Split != "holdout" || r.Scored != 2 {
			t.Errorf("second run %+v: want nightly, oracle scope, holdout, 2 scored", r)
		}
		if runs[0].Oracle != nil || runs[0].Scored != 1 {
			t.Errorf("first run %+v: no oracle, and the task that errored not counted", runs[0])
		}
		outs, err := la.EvalOutcomes(ctx, kb.LogFilter{})
		if err != nil || len(outs) != 3 {
			t.Fatalf("outcomes %+v, %v: want the 3 scored tasks", outs, err)
		}
		if v, ok := outs[0].Score("scope", "recall"); !ok || v != 0.5 || outs[0].RepoPath != "/a" {
			t.Errorf("first outcome %+v", outs[0])
		}
		for name, tc := range map[string]struct {
			f     kb.LogFilter
			tasks int
		}{
			"since":  {kb.LogFilter{Since: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}, 2},
			"repos":  {kb.LogFilter{Repos: []string{"/b"}}, 1},
			"evals":  {kb.LogFilter{Evals: []string{"old"}}, 1},
			"nobody": {kb.LogFilter{Evals: []string{"weekly"}}, 0},
		} {
			outs, err := la.EvalOutcomes(ctx, tc.f)
			if err != nil || len(outs) != tc.tasks {
				t.Errorf("%s: %d outcomes (%v), want %d", name, len(outs), err, tc.tasks)
			}
		}
		names, _ := la.EvalNames(ctx)
		repos, _ := la.KnownRepos(ctx)
		if !reflect.DeepEqual(names, []string{"nightly", "old"}) || !reflect.DeepEqual(repos, []string{"/a", "/b"}) {
			t.Errorf("names %v, repos %v", names, repos)
		}
	})
}

func TestLogAnalysisSolveRunsAndData(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	withLogs(t, logHome(t), func(la *kb.LogAnalysis) {
		runs, err := la.SolveRuns(ctx, kb.LogFilter{})
		if err != nil || len(runs) != 2 {
			t.Fatalf("solve runs %+v, %v: want the two finished ones", runs, err)
		}
		want := kb.SolveRun{TaskID: "solve-1", RepoPath: "/a", Status: "failed", StartedAt: runs[0].StartedAt,
			Touched: []string{"app/store.py", "app/api.py"}, Dropped: []string{"app/store.py"},
			Passes:   []kb.SolvePass{{Type: "step_implement", Attempts: 2}, {Type: "adjustment", Success: true}},
			Adapters: map[string]string{"scope": kb.AnsweredBase}}
		if !reflect.DeepEqual(runs[0], want) {
			t.Errorf("solve-1:\n got %+v\nwant %+v", runs[0], want)
		}
		if r := runs[1]; !r.Success || r.Touched != nil || r.Passes != nil {
			t.Errorf("solve-2 %+v: complete, no diff, no passes", r)
		}
		if runs, _ := la.SolveRuns(ctx, kb.LogFilter{Repos: []string{"/b"}}); len(runs) != 1 || runs[0].TaskID != "solve-2" {
			t.Errorf("solve runs on /b: %+v", runs)
		}
		data, err := la.DataAvailable(ctx, kb.LogFilter{}, kb.SplitRule{})
		if err != nil {
			t.Fatal(err)
		}
		// Logged: answered calls outside evaluations (the eval run's call and
		// the failed call do not count); positive: of runs that succeeded.
		// No validation fraction and nothing held out: all of it trains.
		wantData := map[string]kb.StageData{
			"scope": {Synthetic: 2, Logged: 3, LoggedPositive: 2, Distilled: 1, SyntheticTrain: 2, LoggedTrain: 3, LoggedPositiveTrain: 2, DistilledTrain: 1},
			"plan":  {Synthetic: 1, SyntheticTrain: 1}}
		if !reflect.DeepEqual(data, wantData) {
			t.Errorf("data %+v, want %+v", data, wantData)
		}
		if data, _ := la.DataAvailable(ctx, kb.LogFilter{Repos: []string{"/b"}}, kb.SplitRule{}); data["scope"] != (kb.StageData{Synthetic: 1, Logged: 1, LoggedPositive: 1, SyntheticTrain: 1, LoggedTrain: 1, LoggedPositiveTrain: 1}) {
			t.Errorf("data on /b %+v", data["scope"])
		}
		// /b held out: its target, its solve run (the one positive of
		// scope's two) and plan's only target go to validation.
		held, err := la.DataAvailable(ctx, kb.LogFilter{}, kb.NewSplitRule(config.Curate{HoldoutRepos: []string{"/b"}}, nil))
		wantHeld := map[string]kb.StageData{
			"scope": {Synthetic: 2, Logged: 3, LoggedPositive: 2, Distilled: 1, SyntheticTrain: 1, LoggedTrain: 2, LoggedPositiveTrain: 1, DistilledTrain: 1},
			"plan":  {Synthetic: 1}}
		if err != nil || !reflect.DeepEqual(held, wantHeld) {
			t.Errorf("/b held out: data %+v, %v; want %+v", held, err, wantHeld)
		}
		// A validation fraction of 1 puts every commit and run in
		// validation; distilled rows keep their stored split.
		all, err := la.DataAvailable(ctx, kb.LogFilter{}, kb.NewSplitRule(config.Curate{ValidationFraction: 1}, nil))
		wantAll := map[string]kb.StageData{"scope": {Synthetic: 2, Logged: 3, LoggedPositive: 2, Distilled: 1, DistilledTrain: 1}, "plan": {Synthetic: 1}}
		if err != nil || !reflect.DeepEqual(all, wantAll) {
			t.Errorf("validation fraction 1: data %+v, %v; want %+v", all, err, wantAll)
		}
		// Evaluated tasks: t1 by both evals, t2 by the first (it errored, but
		// it ran); t3 has no synthetic task row.
		evaluated, err := la.EvaluatedTasks(ctx)
		wantEval := []kb.EvaluatedTask{{"/a", "c1", "holdout"}, {"/a", "c1", "validation"}, {"/b", "c2", "validation"}}
		if err != nil || !reflect.DeepEqual(evaluated, wantEval) {
			t.Errorf("evaluated tasks %+v, %v; want %+v", evaluated, err, wantEval)
		}
	})
}

func TestTrainingPlanRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	home := storetest.Home(t)
	err := kb.WithWriter(ctx, home, kb.Raw, kb.Options{}, func(w kb.Writer) error {
		id, err := kb.NextTrainingPlanID(ctx, w.Conn)
		if err != nil {
			return err
		}
		if err := kb.InsertTrainingPlan(ctx, w.Conn, kb.TrainingPlanRow{ID: id, TaskID: "tp-1", TargetStage: "scope", BaseModel: "reasoning",
			Source: "synthetic", DataCriteria: `{"stages": ["scope"]}`, Hyperparameters: `{}`, ImprovementTargets: `[]`, RawPlan: `{"plan_id": 1}`,
			At: time.Now()}); err != nil {
			return err
		}
		for _, tc := range []struct {
			id   int64
			task string
			want bool
		}{{id, "tp-1", true}, {id, "tp-2", false}, {id + 1, "tp-1", false}} {
			if got, err := kb.TrainingPlanRecorded(ctx, w.Conn, tc.id, tc.task); err != nil || got != tc.want {
				t.Errorf("recorded(%d, %s) = %v, %v; want %v", tc.id, tc.task, got, err, tc.want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Each eval task's outcome says who answered each stage, from its run's
// calls (its passes' included): the base model, one adapter, or more than
// one (mixed); a stage with no call is absent, a task with none has no
// map, and rows that are no model's answer count for no stage.
func TestEvalOutcomesAnsweredBy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	home := storetest.Home(t)
	s, err := kb.Open(ctx, home, kb.Raw, kb.Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB.Exec(`
		INSERT INTO eval_runs (name, oracle, split, repos, stages, seed, models, started_at, status) VALUES
			('e', [], 'validation', [], ['scope'], 1, '{}', TIMESTAMPTZ '2026-01-01 00:00:00+00', 'complete');
		INSERT INTO eval_tasks (eval_run_id, task_id, repo_path, task_run_id, status, finished_at) VALUES
			(1, 'base', '/a', 1, 'scored', now()), (1, 'one', '/a', 2, 'scored', now()),
			(1, 'mixed', '/a', 3, 'scored', now()), (1, 'silent', '/a', 4, 'scored', now());
		INSERT INTO eval_results (eval_run_id, task_id, task_run_id, stage, metric, value)
			SELECT 1, task_id, task_run_id, 'end_to_end', 'success', 1 FROM eval_tasks;
		INSERT INTO task_runs (id, task_id, repo_path, mode, execute_model, context_window, reserved_tokens, stages, success, timestamp) VALUES
			(1, 'eval1-base', '/a', 'solve', 'm', 1, 1, [], true, now()), (2, 'eval1-one', '/a', 'solve', 'm', 1, 1, [], true, now()),
			(3, 'eval1-mixed', '/a', 'solve', 'm', 1, 1, [], true, now()), (4, 'eval1-silent', '/a', 'solve', 'm', 1, 1, [], true, now());
		INSERT INTO retrieval_llm_calls (task_id, call_type, stage_name, model, prompt, response, latency_ms, timestamp, adapter, adapter_version, adapter_sha256) VALUES
			('eval1-base', 'scope', 'scope', 'm', 'p', 'r', 1, now(), NULL, NULL, NULL),
			('eval1-base:impl:p1:s1', 'implement', 'implement', 'm', 'p', 'r', 1, now(), NULL, NULL, NULL),
			('eval1-one:meta_plan', 'scope', 'scope', 'm', 'p', 'r', 1, now(), 'sc', 2, 'h'),
			('eval1-one:impl:p1:s1', 'scope', 'scope', 'm', 'p', 'r', 1, now(), 'sc', 2, 'h'),
			('eval1-one:impl:p1:s1', 'refinement_merge', 'scope', 'none', 'p', 'r', 1, now(), NULL, NULL, NULL),
			('eval1-one:impl:p1:s1', 'implement', 'implement', 'm', 'p', NULL, 1, now(), NULL, NULL, NULL),
			('eval1-mixed', 'scope', 'scope', 'm', 'p', 'r', 1, now(), 'sc', 1, 'h'),
			('eval1-mixed:impl:p1:s1', 'scope', 'scope', 'm', 'p', 'r', 1, now(), NULL, NULL, NULL),
			('eval1-mixed:impl:p1:s1', 'implement', 'implement', 'm', 'p', 'r', 1, now(), 'impl', 1, 'h'),
			('eval1-mixed:impl:p1:s2', 'implement', 'implement', 'm', 'p', 'r', 1, now(), 'impl', 2, 'h'),
			('eval1-mixedx', 'precision', 'precision', 'm', 'p', 'r', 1, now(), 'pr', 1, 'h'),
			('solve-9:impl:p1:s1', 'scope', 'scope', 'm', 'p', 'r', 1, now(), 'sc', 2, 'h');
		-- an eval task's run is the eval's, not a solve run
		INSERT INTO orchestrator_runs (id, task_id, repo_path, task_description, status, timestamp) VALUES
			(1, 'eval1-one', '/a', 'x', 'complete', now()), (2, 'solve-9', '/a', 'y', 'complete', now());`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	withLogs(t, home, func(la *kb.LogAnalysis) {
		outs, err := la.EvalOutcomes(ctx, kb.LogFilter{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]map[string]string{}
		for _, o := range outs {
			got[o.TaskID] = o.Adapters
		}
		want := map[string]map[string]string{
			"base":   {"scope": kb.AnsweredBase, "implement": kb.AnsweredBase},
			"one":    {"scope": "sc@2", "implement": kb.AnsweredBase},
			"mixed":  {"scope": kb.AnsweredMixed, "implement": kb.AnsweredMixed},
			"silent": nil,
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("answered by:\n got %v\nwant %v", got, want)
		}
		runs, err := la.SolveRuns(ctx, kb.LogFilter{})
		if err != nil || len(runs) != 1 || runs[0].TaskID != "solve-9" || !reflect.DeepEqual(runs[0].Adapters, map[string]string{"scope": "sc@2"}) {
			t.Errorf("solve runs %+v, %v: want solve-9 alone, its scope answered by sc@2", runs, err)
		}
	})
	// A reader does not migrate: a store from before the adapter columns
	// and the registry reads as the base model's, with no gate.
	s, err = kb.Open(ctx, home, kb.Raw, kb.Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB.Exec(`DROP VIEW gen_ai_calls; ALTER TABLE retrieval_llm_calls DROP COLUMN adapter; DROP TABLE adapter_gates`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	withLogs(t, home, func(la *kb.LogAnalysis) {
		outs, err := la.EvalOutcomes(ctx, kb.LogFilter{})
		if err != nil || len(outs) != 4 || outs[0].Adapters != nil {
			t.Errorf("outcomes of an older store: %+v, %v; want 4 with no adapters", outs, err)
		}
		if gates, err := la.LatestGates(ctx); err != nil || len(gates) != 0 {
			t.Errorf("gates of an older store: %v, %v", gates, err)
		}
	})
}
