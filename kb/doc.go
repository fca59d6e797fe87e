// Package kb owns cra's two DuckDB stores: opening them, the one-writer lock
// and the notes that name who holds a store (writers and readers), the
// per-input locks of batches (a repository, a dataset name) and run liveness,
// the embedded versioned migrations, attaching both for SQL, the writer
// helpers every load goes through (bounded transactions, Appenders, the
// anti-join on deterministic ids), compaction, the curated read API
// (KnowledgeBase), dataset versions, the raw run-log writers and
// readers (index runs, model calls, task runs, solve runs, training
// examples, training plans, status, distillation's request cache,
// spending, batches and outcomes, the adapter registry) and the read API
// over the run logs for `cra train-plan` (LogAnalysis: eval scores, solve runs, training data
// available).
//
// The types stored and exchanged with models (stages, ground truth, plans,
// plan passes, edits, docstring fields) are defined once in kb/schema, a
// leaf package that agent/prompt and ingest/lang import without the
// stores.
//
// curated.duckdb is the code knowledge base: derived, and rebuildable by
// `cra index`. raw.duckdb is everything that happened: append-only, never
// rebuilt. kb imports no feature package; features import kb.
//
// # Who spells a table in SQL
//
// A table's SQL lives with the one package that writes it, its owner.
// Any other package reads that table through a reader in kb named for
// what it returns, so a table's columns are spelled in its migration, its
// owner and kb only. `cra sql`, the notebooks and test fixtures are users'
// SQL and exempt. The owners (TestSQLOwnership holds the same list and
// fails on SQL elsewhere):
//
//	ingest      the curated store (repos, files, symbols, docstrings,
//	            inline_comments, imports, name_references, dependencies,
//	            symbol_references, commits, commit_files, file_commits,
//	            co_changes, file_metadata, skipped_files, code_index)
//	            and raw.enrichment_outputs
//	bootstrap   bootstrap_runs, bootstrap_repos, bootstrap_commits,
//	            bootstrap_merges, bootstrap_funnel, bootstrap_walked,
//	            synthetic_tasks, synthetic_targets; and curated's
//	            bootstrap_facts (its parsed facts kept across runs)
//	agent/eval  eval_runs, eval_tasks, eval_results, eval_commit_tests,
//	            eval_commit_judgements, ask_questions
//	shards      shard_home, shard_runs; and it copies bootstrap's tables
//	            whole (export to Parquet, import into another home, the
//	            views of `cra sql --shards`), anti-joined on bootstrap's
//	            keys, without reading them for a feature of its own
//	kb          the run log (task_runs, retrieval_llm_calls,
//	            retrieval_decisions, run_attempts, validation_results,
//	            session_archives, orchestrator_runs, orchestrator_passes,
//	            index_runs, gen_ai_calls, solve_trace); the dataset
//	            registry (training_plans, training_datasets,
//	            training_examples, training_examples_staging,
//	            dataset_versions); distillation's tables (distill_runs,
//	            distill_cache, distill_spend, distill_batches,
//	            distill_outcomes, distill_pairs); the adapter registry
//	            (adapters, adapter_gates, adapter_events: agent/adapters
//	            decides, kb/adapters.go writes); adapter_metadata (no
//	            writer yet)
//
// A query that joins tables of two owners for one feature (curate's
// logged runs with their eval scores and ground truth) is a reader in kb
// too.
package kb
