-- Runs overview: what the agent has done and how it went.
-- Run with: cra sql -f notebooks/runs_overview.sql

-- Task runs per mode: how many, how many succeeded, tokens and latency.
SELECT mode,
       count(*)                                   AS runs,
       count(*) FILTER (WHERE success)            AS succeeded,
       count(*) FILTER (WHERE success IS NULL)    AS unfinished,
       sum(total_tokens)                          AS tokens,
       median(total_latency_ms)                   AS median_latency_ms,
       max(timestamp)                             AS last_run
FROM raw.task_runs
GROUP BY mode
ORDER BY runs DESC;

-- Model calls per call type and model: failures and latency.
SELECT call_type,
       model,
       count(*)                                   AS calls,
       count(*) FILTER (WHERE error IS NOT NULL)  AS failed,
       round(avg(prompt_tokens), 1)               AS avg_prompt_tokens,
       round(avg(completion_tokens), 1)           AS avg_completion_tokens,
       quantile_cont(latency_ms, 0.5)             AS p50_latency_ms,
       quantile_cont(latency_ms, 0.95)            AS p95_latency_ms
FROM raw.retrieval_llm_calls
GROUP BY ALL
ORDER BY calls DESC;
