-- A cra solve run in one query: every pass of the run in order, and under
-- each its model calls (prompt, response), its implement attempts and
-- their validations, by time. Filter on run_task_id.
CREATE VIEW solve_trace AS
WITH passes AS (
    SELECT o.task_id AS run_task_id, o.status AS run_status, p.sequence_order, p.pass_type, p.part_id, p.step_id,
           t.id AS task_run_id, t.task_id AS pass_task_id, t.success AS pass_success
    FROM orchestrator_runs o
    JOIN orchestrator_passes p ON p.orchestrator_run_id = o.id
    JOIN task_runs t ON t.id = p.task_run_id
)
SELECT p.*, 'call' AS kind, c.call_type AS detail, c.stage_name AS stage, c.system_prompt, c.prompt, c.response,
       NULL::INTEGER AS attempt, NULL::BOOLEAN AS patch_applied, NULL::BOOLEAN AS tests_passed,
       NULL::VARCHAR[] AS failing_tests, NULL::VARCHAR AS test_output, c.error, c.timestamp
FROM passes p JOIN retrieval_llm_calls c ON c.task_id = p.pass_task_id
UNION ALL
SELECT p.*, 'attempt', NULL, 'implement', NULL, NULL, a.raw_response,
       a.attempt, a.patch_applied, v.success, v.failing_tests, v.test_output, NULL, a.timestamp
FROM passes p JOIN run_attempts a ON a.task_run_id = p.task_run_id
LEFT JOIN validation_results v ON v.attempt_id = a.id;
