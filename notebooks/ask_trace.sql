-- Ask trace: one `cra ask`, from its question and mode to every model call,
-- every source each pass was shown and every gap the answer named with how
-- it was resolved. Run with: cra sql -f notebooks/ask_trace.sql
-- It traces the newest ask; to trace another, replace the `run` query in
-- each statement by: SELECT 'the-task-id' AS task_id

-- The ask: its run, and how the question was classified (the mode, who
-- decided it: model, fallback or oracle, and why).
WITH run AS (SELECT task_id FROM raw.task_runs WHERE mode = 'ask' ORDER BY timestamp DESC LIMIT 1)
SELECT t.task_id, t.repo_path, t.execute_model, t.success, t.total_tokens, t.total_latency_ms,
       d.tier AS mode, d.reason AS classification, t.timestamp
FROM raw.task_runs t JOIN run USING (task_id)
LEFT JOIN raw.retrieval_decisions d ON d.task_id = t.task_id AND d.stage = 'ask_classify';

-- Every model call, in order: the classifier, then each answer pass.
WITH run AS (SELECT task_id FROM raw.task_runs WHERE mode = 'ask' ORDER BY timestamp DESC LIMIT 1)
SELECT c.timestamp, c.stage_name, c.model, c.adapter, c.prompt_tokens, c.completion_tokens, c.latency_ms,
       c.error, c.prompt, c.response, c.thinking
FROM raw.retrieval_llm_calls c JOIN run USING (task_id)
WHERE c.call_type NOT IN ('ask_retrieval', 'ask_gap')
ORDER BY c.timestamp, c.id;

-- The context, source by source: the retrieval step that found it (tier),
-- its rank, whether it was shown or cut for the budget, and why. The pass
-- is in the reason.
WITH run AS (SELECT task_id FROM raw.task_runs WHERE mode = 'ask' ORDER BY timestamp DESC LIMIT 1)
SELECT d.timestamp, f.path AS file, s.name AS symbol, s.start_line, s.end_line, d.tier AS step, d.rank, d.included, d.reason
FROM raw.retrieval_decisions d JOIN run USING (task_id)
LEFT JOIN curated.files f ON f.id = d.file_id
LEFT JOIN curated.symbols s ON s.id = d.symbol_id
WHERE d.stage = 'ask_retrieval'
ORDER BY d.timestamp, d.id;

-- Budget use per pass: tokens of context against the ask's limit.
WITH run AS (SELECT task_id FROM raw.task_runs WHERE mode = 'ask' ORDER BY timestamp DESC LIMIT 1)
SELECT json_extract(c.response, '$.pass')::INTEGER AS pass,
       json_array_length(json_extract(c.response, '$.sources')) AS sources_added,
       json_extract(c.response, '$.cut')::INTEGER AS cut,
       json_extract(c.response, '$.budget.total_used')::INTEGER AS used,
       json_extract(c.response, '$.budget.budget_limit')::INTEGER AS budget_limit
FROM raw.retrieval_llm_calls c JOIN run USING (task_id)
WHERE c.call_type = 'ask_retrieval'
ORDER BY c.timestamp, c.id;

-- Every gap the answers named and what became of it: looked up directly
-- (a file or symbol it named), found by the mode's search, unresolvable
-- (never looked for again), repeated, or left for the budget or the
-- passes.
WITH run AS (SELECT task_id FROM raw.task_runs WHERE mode = 'ask' ORDER BY timestamp DESC LIMIT 1)
SELECT json_extract(c.response, '$.pass')::INTEGER AS pass, c.prompt AS gap,
       json_extract_string(c.response, '$.by') AS resolution,
       json_extract(c.response, '$.sources') AS sources,
       json_extract(c.response, '$.tokens')::INTEGER AS tokens
FROM raw.retrieval_llm_calls c JOIN run USING (task_id)
WHERE c.call_type = 'ask_gap'
ORDER BY c.timestamp, c.id;
