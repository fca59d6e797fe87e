-- Eval scoreboard: how the agent scores, stage by stage, on held-out history.
-- Run with: cra sql -f notebooks/eval_scoreboard.sql

-- The evals, newest first: what they ran and how far they got.
SELECT r.id, r.name, r.oracle, r.split, r.sample, r.seed, r.status,
       count(t.task_id)                                  AS tasks,
       count(t.task_id) FILTER (WHERE t.status = 'error') AS could_not_run,
       round(sum(t.model_ms) / 1000.0, 1)                AS model_seconds,
       r.started_at, r.finished_at
FROM raw.eval_runs r LEFT JOIN raw.eval_tasks t ON t.eval_run_id = r.id
GROUP BY ALL
ORDER BY r.started_at DESC;

-- Per-stage scores of the latest eval of each name and oracle set: the
-- mean of every metric over its scored tasks (cra eval prints the same
-- with 95 % intervals).
WITH latest AS (
    SELECT id, name, oracle FROM raw.eval_runs
    QUALIFY row_number() OVER (PARTITION BY name, oracle ORDER BY started_at DESC) = 1
)
SELECT l.name, l.oracle, e.stage, e.metric, count(*) AS tasks, round(avg(e.value), 3) AS score
FROM raw.eval_results e JOIN latest l ON l.id = e.eval_run_id
GROUP BY l.name, l.oracle, e.stage, e.metric
ORDER BY l.name, l.oracle,
         list_position(['task_analysis', 'scope', 'precision', 'meta_plan', 'part_plan', 'implement', 'end_to_end'], stage),
         metric <> 'correct', metric;

-- The stage each failed task went wrong first (the earliest stage whose
-- `correct` is 0): where train-plan looks for what to train.
WITH firsts AS (
    SELECT e.eval_run_id, e.task_id,
           arg_min(e.stage, list_position(['task_analysis', 'scope', 'precision', 'meta_plan', 'part_plan', 'implement'], e.stage)) AS stage
    FROM raw.eval_results e
    WHERE e.metric = 'correct' AND e.value = 0
    GROUP BY ALL
)
SELECT r.name, r.oracle, f.stage AS first_wrong_stage, count(*) AS failed_tasks
FROM raw.eval_results s
JOIN raw.eval_runs r ON r.id = s.eval_run_id
JOIN firsts f ON f.eval_run_id = s.eval_run_id AND f.task_id = s.task_id
WHERE s.stage = 'end_to_end' AND s.metric = 'success' AND s.value = 0
GROUP BY ALL
ORDER BY r.name, failed_tasks DESC;
