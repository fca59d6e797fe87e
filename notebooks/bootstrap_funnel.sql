-- Bootstrap funnel: what the nightly batch made of each repository's commits.
-- Run with: cra sql -f notebooks/bootstrap_funnel.sql

-- Outcome of every commit seen, per repository (all runs): the filter rule
-- that rejected it, or 'verified' when its ground truth was stored.
SELECT repo_path,
       outcome,
       count(*)                                                  AS commits,
       round(100.0 * count(*) / sum(count(*)) OVER (PARTITION BY repo_path), 1) AS pct
FROM raw.bootstrap_commits
GROUP BY repo_path, outcome
ORDER BY repo_path, commits DESC;

-- The last runs: repositories, commits seen, verified, and how long.
SELECT r.id                                                      AS run,
       r.status,
       r.repos,
       r.failed,
       count(c.commit)                                           AS commits_seen,
       count(c.commit) FILTER (WHERE c.outcome = 'verified')     AS verified,
       r.finished_at - r.started_at                              AS took
FROM raw.bootstrap_runs r
LEFT JOIN raw.bootstrap_commits c ON c.run_id = r.id
GROUP BY ALL
ORDER BY run DESC
LIMIT 20;

-- Each repository's state: watermark size, last outcome and error.
SELECT repo_path, last_status, len(watermark) AS refs, last_error, updated_at
FROM raw.bootstrap_repos
ORDER BY updated_at DESC;

-- Scope quality of the retrieval design itself: how often tiered expansion
-- reached every file the commit touched, and how many candidates it proposed.
SELECT repo_path,
       count(*)                                                              AS tasks,
       round(avg(CASE WHEN target->>'reached' = 'true' THEN 1 ELSE 0 END), 3) AS reached_rate,
       round(avg(json_array_length(target->'candidates')), 1)                AS avg_candidates
FROM raw.synthetic_targets
WHERE stage = 'scope'
GROUP BY ALL
ORDER BY tasks DESC;
