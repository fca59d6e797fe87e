-- cra ask --eval: how cra ask answers questions with known answers,
-- per kind of question (diagnostic, exploratory, conceptual, bugreport).
-- Run with: cra sql -f notebooks/ask_eval.sql

-- Per kind, the latest ask eval of each name and oracle set: questions,
-- classification accuracy, file recall@5 of the retrieval (before any model
-- choice) and of the answer's citations, symbol hit, answer rate (cra ask
-- --eval prints the same).
WITH latest AS (
    SELECT id, name, oracle FROM raw.eval_runs
    WHERE list_contains(stages, 'ask_classify')
    QUALIFY row_number() OVER (PARTITION BY name, oracle ORDER BY started_at DESC) = 1
)
SELECT l.name, l.oracle, q.kind, q.mode,
       count(DISTINCT q.question_id)                                                              AS questions,
       count(DISTINCT q.question_id) FILTER (WHERE t.status = 'error')                            AS could_not_run,
       round(avg(e.value) FILTER (WHERE e.stage = 'ask_classify' AND e.metric = 'correct'), 3)     AS classified,
       round(avg(e.value) FILTER (WHERE e.stage = 'ask_retrieval' AND e.metric = 'recall_at_5'), 3) AS retrieval_recall_at_5,
       round(avg(e.value) FILTER (WHERE e.stage = 'ask_answer' AND e.metric = 'recall_at_5'), 3)    AS answer_recall_at_5,
       round(avg(e.value) FILTER (WHERE e.stage = 'ask_answer' AND e.metric = 'symbol_hit'), 3)     AS symbol_hit,
       round(avg(e.value) FILTER (WHERE e.stage = 'ask_answer' AND e.metric = 'answered'), 3)       AS answered
FROM latest l
JOIN raw.ask_questions q ON q.eval_run_id = l.id
JOIN raw.eval_tasks t ON t.eval_run_id = q.eval_run_id AND t.task_id = q.question_id
LEFT JOIN raw.eval_results e ON e.eval_run_id = t.eval_run_id AND e.task_id = t.task_id
GROUP BY ALL
ORDER BY l.name, l.oracle, q.kind;

-- The questions whose retrieval missed an expected file in its first five,
-- with what was expected and the ask's task id (notebooks/ask_trace.sql
-- shows what it retrieved and why).
SELECT r.name, q.kind, q.question, q.expected_files, q.expected_symbols, e.value AS retrieval_recall_at_5,
       k.task_id AS ask_task_id
FROM raw.ask_questions q
JOIN raw.eval_runs r ON r.id = q.eval_run_id
JOIN raw.eval_tasks t ON t.eval_run_id = q.eval_run_id AND t.task_id = q.question_id
JOIN raw.eval_results e ON e.eval_run_id = t.eval_run_id AND e.task_id = t.task_id
    AND e.stage = 'ask_retrieval' AND e.metric = 'recall_at_5'
LEFT JOIN raw.task_runs k ON k.id = t.task_run_id
WHERE e.value < 1
ORDER BY r.name, q.kind, q.question_id;
