package notebooks

import (
	"context"
	"testing"

	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// TestNotebooksRunAgainstTheSchema runs every statement of every notebook
// against a fixture store with a few rows, so a schema change that breaks a
// notebook fails here.
func TestNotebooksRunAgainstTheSchema(t *testing.T) {
	ctx := context.Background()
	a := fixture(t)
	all, err := All()
	if err != nil || len(all) == 0 {
		t.Fatalf("notebooks: %d, %v", len(all), err)
	}
	for _, nb := range all {
		stmts := kb.SplitStatements(nb.SQL)
		if len(stmts) == 0 {
			t.Errorf("%s has no statement", nb.Name)
		}
		for i, stmt := range stmts {
			rows, err := a.Conn.QueryContext(ctx, stmt)
			if err != nil {
				t.Errorf("%s statement %d: %v", nb.Name, i+1, err)
				continue
			}
			n := 0
			for rows.Next() {
				n++
			}
			rows.Close()
			if n == 0 {
				t.Errorf("%s statement %d returned no row on the fixture", nb.Name, i+1)
			}
		}
	}
}

// fixture returns a store with a few rows in the tables the notebooks read,
// closed when the test ends.
func fixture(t *testing.T) *kb.Attached {
	t.Helper()
	ctx := context.Background()
	dir := storetest.Home(t)
	a, err := kb.Attach(ctx, dir, true, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	if _, err := a.Conn.ExecContext(ctx, `
		INSERT INTO curated.repos (path, indexed_at) VALUES ('/r', now());
		INSERT INTO curated.files (repo_id, path, language, content_hash, size_bytes) VALUES (1, 'a.py', 'python', 'h', 10), (1, 'b.py', 'python', 'h2', 20);
		INSERT INTO curated.symbols (file_id, name, kind, start_line, end_line, raises) VALUES (1, 'f', 'function', 1, 2, ['ValueError']);
		INSERT INTO curated.skipped_files (repo_id, path, reason, size_bytes) VALUES (1, 'logo.png', 'binary', 5);
		INSERT INTO curated.co_changes (file_a_id, file_b_id, count) VALUES (1, 2, 3);
		INSERT INTO curated.dependencies (source_file_id, target_file_id, kind) VALUES (1, 2, 'import');
		INSERT INTO raw.task_runs (task_id, repo_path, mode, execute_model, context_window, reserved_tokens, stages, success, timestamp)
			VALUES ('t', '/r', 'plan', 'm', 32768, 8192, ['scope'], true, now());
		INSERT INTO raw.retrieval_llm_calls (task_id, call_type, model, prompt, latency_ms, error, timestamp)
			VALUES ('t', 'scope', 'm', 'p', 10, 'timeout', now());
		INSERT INTO raw.retrieval_llm_calls (task_id, call_type, model, prompt, response, thinking, latency_ms, timestamp)
			VALUES ('t:meta_plan', 'meta_plan', 'm', 'p', '{}', 'hm', 10, now());
		INSERT INTO raw.retrieval_decisions (task_id, stage, file_id, symbol_id, detail_level, tier, included, reason, timestamp)
			VALUES ('t', 'scope', 1, NULL, NULL, '1', true, 'kept by the model', now()),
			       ('t', 'precision', 1, 1, 'primary', NULL, true, 'overlaps the change', now());
		INSERT INTO raw.task_runs (task_id, repo_path, mode, execute_model, context_window, reserved_tokens, stages, success, timestamp)
			VALUES ('ask-1', '/r', 'ask', 'm', 32768, 8192, ['ask_classify', 'ask_answer'], true, now());
		INSERT INTO raw.retrieval_decisions (task_id, stage, file_id, symbol_id, detail_level, tier, rank, included, reason, timestamp)
			VALUES ('ask-1', 'ask_classify', 0, NULL, NULL, 'diagnostic', NULL, true, 'diagnostic by model: names an error type', now()),
			       ('ask-1', 'ask_retrieval', 1, 1, NULL, 'error_site', 1, true, 'diagnostic, pass 1: raises ValueError', now());
		INSERT INTO raw.retrieval_llm_calls (task_id, call_type, stage_name, model, prompt, response, latency_ms, timestamp)
			VALUES ('ask-1', 'ask_answer', 'ask_answer', 'm', 'Question:', '<answer>a</answer>', 10, now()),
			       ('ask-1', 'ask_retrieval', 'ask_answer', 'none', 'context for pass 1', '{"pass": 1, "sources": ["a.py:1-2"], "cut": 0, "budget": {"total_used": 10, "budget_limit": 6000}}', 0, now()),
			       ('ask-1', 'ask_gap', 'ask_answer', 'none', 'b.py', '{"pass": 1, "by": "direct", "sources": ["b.py"], "tokens": 5}', 0, now());
		INSERT INTO raw.bootstrap_runs (started_at, finished_at, repos, failed, status, options)
			VALUES (now(), now(), 1, 0, 'ok', '{}');
		INSERT INTO raw.bootstrap_repos (repo_path, watermark, last_run_id, last_status, updated_at)
			VALUES ('/r', ['abc'], 1, 'ok', now());
		INSERT INTO raw.bootstrap_commits (run_id, repo_path, commit, parents, committed_at, files, insertions, deletions, outcome)
			VALUES (1, '/r', 'c1', ['c0'], now(), ['a.py'], 1, 1, 'verified'), (1, '/r', 'c2', ['c1'], now(), [], 0, 0, 'message_short');
		INSERT INTO raw.synthetic_targets (id, task_id, repo_path, commit, stage, target, created_at)
			VALUES ('s', 't', '/r', 'c1', 'scope', '{"candidates": [{"path": "a.py"}], "reached": true}', now());
		INSERT INTO raw.training_datasets (training_plan_id, stage_name, base_model, dataset_path, example_count,
			positive_count, negative_count, timestamp, name, version)
			VALUES (1, 'scope', 'reasoning', 'raw.training_examples', 1, 1, 0, now(), 'd', 1);
		INSERT INTO raw.dataset_versions (name, version, training_plan_id, examples, dropped, criteria, cra_version, created_at)
			VALUES ('d', 1, 1, 1, '{"near_duplicate": 2}', '{}', 'test', now());
		INSERT INTO raw.training_examples (id, dataset, stage, source, split, label, repo_path, commit, target_id,
			messages, prompt_tokens, completion_tokens, created_at)
			VALUES ('e', 'd', 'scope', 'synthetic', 'train', 'positive', '/r', 'c1', 's',
				[{'role': 'user', 'content': 'q'}, {'role': 'assistant', 'content': 'a'}], 10, 2, now());
		INSERT INTO raw.eval_runs (name, oracle, split, repos, stages, seed, models, started_at, status)
			VALUES ('nightly', [], 'all-held-out', [], ['scope'], 1, '{}', now(), 'complete');
		INSERT INTO raw.eval_tasks (eval_run_id, task_id, repo_path, task_run_id, status, model_ms, elapsed_ms, finished_at)
			VALUES (1, 't', '/r', 1, 'scored', 1200, 3000, now());
		INSERT INTO raw.eval_results (eval_run_id, task_id, task_run_id, stage, metric, value)
			VALUES (1, 't', 1, 'scope', 'correct', 0), (1, 't', 1, 'scope', 'recall', 0.5), (1, 't', 1, 'precision', 'correct', 0),
			       (1, 't', 1, 'end_to_end', 'success', 0);
		INSERT INTO raw.eval_runs (name, oracle, split, repos, stages, seed, models, started_at, status)
			VALUES ('ask-nall-seed1', [], 'all-held-out', [], ['ask_classify', 'ask_retrieval', 'ask_answer'], 1, '{}', now(), 'complete');
		INSERT INTO raw.eval_tasks (eval_run_id, task_id, repo_path, task_run_id, status, model_ms, elapsed_ms, finished_at)
			VALUES (2, 'ask/diagnostic/0123456789ab', '/r', 2, 'scored', 300, 900, now());
		INSERT INTO raw.ask_questions (eval_run_id, question_id, kind, mode, repo_path, question, expected_files, expected_symbols, expected_lines)
			VALUES (2, 'ask/diagnostic/0123456789ab', 'diagnostic', 'diagnostic', '/r', 'Why do I get "ValueError: bad"?', ['a.py'], ['f'], ['a.py:1-2']);
		INSERT INTO raw.eval_results (eval_run_id, task_id, task_run_id, stage, metric, value)
			VALUES (2, 'ask/diagnostic/0123456789ab', 2, 'ask_classify', 'correct', 1), (2, 'ask/diagnostic/0123456789ab', 2, 'ask_retrieval', 'recall_at_5', 0),
			       (2, 'ask/diagnostic/0123456789ab', 2, 'ask_answer', 'answered', 1);`); err != nil {
		t.Fatal(err)
	}
	// Preference pairs of three signals and KTO rows in two versions of
	// dataset p, and two student calls cra distill answered (call 10 not
	// yet paired, call 11 paired in p) plus one it could not verify (12).
	if _, err := a.Conn.ExecContext(ctx, `
		INSERT INTO raw.dataset_versions (name, version, training_plan_id, examples, dropped, criteria, cra_version, created_at)
			VALUES ('p', 1, 1, 9, '{}', '{}', 'test', now()), ('p', 2, 1, 1, '{}', '{}', 'test', now());
		INSERT INTO raw.training_examples (id, dataset, version, kind, stage, source, split, label, signal, evidence,
			repo_path, target_id, messages, chosen, rejected, prompt_tokens, completion_tokens, created_at)
			VALUES
			('p1', 'p', 1, 'preference', 'implement', 'logged', 'train', 'pair', 'coder_retry',
				'{"run": "solve-1", "pass_task_id": "solve-1:implement", "attempt_id": 2, "tests_passed": true}', '/r', 'c:1',
				[{'role': 'user', 'content': 'q'}], [{'role': 'assistant', 'content': 'fixed code'}], [{'role': 'assistant', 'content': 'bad'}], 10, 3, now()),
			('p2', 'p', 1, 'preference', 'implement', 'logged', 'validation', 'pair', 'coder_retry',
				'{"run": "solve-2", "pass_task_id": "solve-2:implement", "attempt_id": 3, "tests_passed": false}', '/r', 'c:2',
				[{'role': 'user', 'content': 'q'}], [{'role': 'assistant', 'content': 'ok'}], [{'role': 'assistant', 'content': 'worse one'}], 10, 3, now()),
			('p3', 'p', 1, 'preference', 'implement', 'logged', 'train', 'pair', 'coder_retry',
				'{"run": "solve-3", "pass_task_id": "solve-3:implement", "attempt_id": 2}', '/s', 'c:3',
				[{'role': 'user', 'content': 'q'}], [{'role': 'assistant', 'content': 'good'}], [{'role': 'assistant', 'content': 'bad'}], 10, 3, now()),
			('p4', 'p', 1, 'preference', 'implement', 'logged', 'train', 'pair', 'eval',
				'{"eval_run_id": 1, "metric": "correct", "value": 0}', '/r', 'c:4',
				[{'role': 'user', 'content': 'q'}], [{'role': 'assistant', 'content': 'truth'}], [{'role': 'assistant', 'content': 'wrong'}], 10, 3, now()),
			('p5', 'p', 1, 'preference', 'scope', 'distilled', 'train', 'pair', 'teacher_student',
				'{"student_call_id": 11}', '/r', 'call:11',
				[{'role': 'user', 'content': 'q'}], [{'role': 'assistant', 'content': 'teacher'}], [{'role': 'assistant', 'content': 'student'}], 10, 3, now()),
			('p6', 'p', 2, 'preference', 'implement', 'logged', 'train', 'pair', 'coder_retry',
				'{"run": "solve-1", "pass_task_id": "solve-1:implement", "attempt_id": 2, "tests_passed": true}', '/r', 'c:1',
				[{'role': 'user', 'content': 'q'}], [{'role': 'assistant', 'content': 'fixed code'}], [{'role': 'assistant', 'content': 'bad'}], 10, 3, now()),
			('k1', 'p', 1, 'kto', 'implement', 'logged', 'train', 'positive', 'implement_tests', '{"run": "solve-1", "tests_passed": true}', '/r', 'c:5',
				[{'role': 'user', 'content': 'q'}, {'role': 'assistant', 'content': 'a'}], NULL, NULL, 10, 1, now()),
			('k2', 'p', 1, 'kto', 'implement', 'logged', 'train', 'positive', 'implement_tests', '{"run": "solve-4", "tests_passed": true}', '/r', 'c:6',
				[{'role': 'user', 'content': 'q'}, {'role': 'assistant', 'content': 'a'}], NULL, NULL, 10, 1, now()),
			('k3', 'p', 1, 'kto', 'implement', 'logged', 'train', 'negative', 'implement_tests', '{"run": "solve-2", "tests_passed": false}', '/r', 'c:7',
				[{'role': 'user', 'content': 'q'}, {'role': 'assistant', 'content': 'a'}], NULL, NULL, 10, 1, now()),
			('k4', 'p', 1, 'kto', 'scope', 'logged', 'train', 'negative', 'eval_correct', '{"eval_run_id": 1, "metric": "correct", "value": 0}', '/r', 'c:8',
				[{'role': 'user', 'content': 'q'}, {'role': 'assistant', 'content': 'a'}], NULL, NULL, 10, 1, now());
		INSERT INTO raw.retrieval_llm_calls (id, task_id, call_type, stage_name, model, system_prompt, prompt, response, latency_ms, timestamp)
			VALUES (10, 'solve-1', 'scope', 'scope', 'small', 's', 'p', 'student answer', 10, now()),
			       (11, 'solve-1', 'scope', 'scope', 'small', 's', 'p2', 'student answer 2', 10, now()),
			       (12, 'solve-2', 'scope', 'scope', 'small', 's', 'p3', 'student answer 3', 10, now());
		INSERT INTO raw.distill_cache (request_key, model, response, cost_usd, call_task_id, run_id, created_at)
			VALUES ('k10', 'teacher', 'teacher answer', 0.01, 'distill:k10', 1, now()),
			       ('k11', 'teacher', 'teacher answer 2', 0.01, 'distill:k11', 1, now()),
			       ('k12', 'teacher', 'teacher answer 3', 0.01, 'distill:k12', 1, now());
		INSERT INTO raw.distill_outcomes (name, item_id, source, stage, student_call_id, request_key, call_task_id, run_id,
			repo_path, split, verified, checked, reason, created_at)
			VALUES ('distilled', 'call:10', 'failed-runs', 'scope', 10, 'k10', 'distill:k10', 1, '/r', 'train', true, 'parse', 'parsed', now()),
			       ('distilled', 'call:11', 'failed-runs', 'scope', 11, 'k11', 'distill:k11', 1, '/r', 'train', true, 'parse', 'parsed', now()),
			       ('distilled', 'call:12', 'failed-runs', 'scope', 12, 'k12', 'distill:k12', 1, '/r', 'train', false, 'parse', 'unparseable', now());`); err != nil {
		t.Fatal(err)
	}
	return a
}
