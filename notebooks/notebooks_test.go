package notebooks

import (
	"context"
	"testing"

	"github.com/cra-dev/cra/kb"
)

// TestNotebooksRunAgainstTheSchema runs every statement of every notebook
// against a fixture store with a few rows, so a schema change that breaks a
// notebook fails here.
func TestNotebooksRunAgainstTheSchema(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := kb.Init(ctx, dir, "test"); err != nil {
		t.Fatal(err)
	}
	a, err := kb.Attach(ctx, dir, true, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
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
			       (1, 't', 1, 'end_to_end', 'success', 0);`); err != nil {
		t.Fatal(err)
	}
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
