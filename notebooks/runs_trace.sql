-- Runs trace: one run, from its task_runs row to every model call (prompt,
-- response, thinking) and every retrieval decision, its sub-passes included
-- (task ids are hierarchical: <run>, <run>:meta_plan, <run>:impl:<part>:<step>, ...).
-- Run with: cra sql -f notebooks/runs_trace.sql
-- It traces the newest top-level run (a task id without ':'; a run's row is
-- stamped when it starts, so its sub-passes are newer than it) and its whole
-- tree; to trace another, replace the `run` query in each statement by:
-- SELECT 'the-task-id' AS task_id

-- The run and its sub-runs.
WITH run AS (SELECT task_id FROM raw.task_runs WHERE task_id NOT LIKE '%:%' ORDER BY timestamp DESC LIMIT 1)
SELECT t.task_id, t.mode, t.repo_path, t.execute_model, t.stages, t.success, t.total_tokens,
       t.total_latency_ms, t.timestamp
FROM raw.task_runs t, run
WHERE t.task_id = run.task_id OR t.task_id LIKE run.task_id || ':%'
ORDER BY t.timestamp;

-- Every model call, in order, with what was sent and what came back.
WITH run AS (SELECT task_id FROM raw.task_runs WHERE task_id NOT LIKE '%:%' ORDER BY timestamp DESC LIMIT 1)
SELECT c.timestamp, c.task_id, c.call_type, c.stage_name, c.model, c.prompt_tokens, c.completion_tokens,
       c.latency_ms, c.error, c.system_prompt, c.prompt, c.response, c.thinking
FROM raw.retrieval_llm_calls c, run
WHERE c.task_id = run.task_id OR c.task_id LIKE run.task_id || ':%'
ORDER BY c.timestamp, c.id;

-- Every retrieval decision: each candidate file and symbol, its tier, and
-- whether it was kept and why.
WITH run AS (SELECT task_id FROM raw.task_runs WHERE task_id NOT LIKE '%:%' ORDER BY timestamp DESC LIMIT 1)
SELECT d.task_id, d.stage, f.path AS file, s.name AS symbol, d.tier, d.detail_level, d.included, d.reason
FROM raw.retrieval_decisions d
JOIN run ON d.task_id = run.task_id OR d.task_id LIKE run.task_id || ':%'
LEFT JOIN curated.files f ON f.id = d.file_id
LEFT JOIN curated.symbols s ON s.id = d.symbol_id
ORDER BY d.stage, d.included DESC, d.tier, file, symbol;
