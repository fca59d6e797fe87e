-- Preference pairs and KTO rows: what each dataset version holds to
-- train on besides SFT, where its labels came from, and the teacher-vs-
-- student pairs cra distill left that no dataset holds yet.
-- Run with: cra sql -f notebooks/preference_pairs.sql
--
-- A preference row (kind 'preference', label 'pair') is a prompt
-- (messages) with a chosen and a rejected answer; a KTO row (kind 'kto')
-- is a prompt and its completion labelled positive or negative. signal
-- says where the label came from, evidence the ids and outcomes behind it.

-- Preference pairs per dataset version, signal, stage and repository.
SELECT dataset,
       version,
       signal,
       stage,
       repo_path,
       count(*) AS pairs
FROM raw.training_examples
WHERE kind = 'preference'
GROUP BY dataset, version, signal, stage, repo_path
ORDER BY dataset, version, signal,
         list_position(['task_analysis', 'scope', 'precision', 'plan', 'meta_plan', 'part_plan', 'implement'], stage),
         stage, repo_path;

-- The same for the latest version of each dataset, with each repository's
-- share of its signal and stage: one repository should not dominate.
WITH latest AS (
    SELECT name, max(version) AS version FROM raw.dataset_versions GROUP BY name
)
SELECT e.dataset,
       e.version,
       e.signal,
       e.stage,
       e.repo_path,
       count(*)                                                                                     AS pairs,
       round(100.0 * count(*) / sum(count(*)) OVER (PARTITION BY e.dataset, e.signal, e.stage), 1)  AS pct
FROM raw.training_examples e
JOIN latest l ON l.name = e.dataset AND l.version = e.version
WHERE e.kind = 'preference'
GROUP BY e.dataset, e.version, e.signal, e.stage, e.repo_path
ORDER BY e.dataset, e.signal,
         list_position(['task_analysis', 'scope', 'precision', 'plan', 'meta_plan', 'part_plan', 'implement'], e.stage),
         e.stage, pairs DESC, e.repo_path;

-- The train/validation split of the pairs, per dataset version, stage and
-- signal.
SELECT dataset,
       version,
       stage,
       signal,
       count(*) FILTER (WHERE split = 'train')                                 AS train,
       count(*) FILTER (WHERE split = 'validation')                            AS validation,
       round(100.0 * count(*) FILTER (WHERE split = 'validation') / count(*), 1) AS validation_pct
FROM raw.training_examples
WHERE kind = 'preference'
GROUP BY dataset, version, stage, signal
ORDER BY dataset, version,
         list_position(['task_analysis', 'scope', 'precision', 'plan', 'meta_plan', 'part_plan', 'implement'], stage),
         stage, signal;

-- Chosen against rejected lengths (characters of the first message of
-- each), on average per signal: a signal whose chosen answers are
-- mostly the longer ones teaches length as much as correctness.
SELECT dataset,
       version,
       signal,
       count(*)                                                                            AS pairs,
       round(avg(length(chosen[1].content)))                                               AS avg_chosen_chars,
       round(avg(length(rejected[1].content)))                                             AS avg_rejected_chars,
       round(100.0 * count(*) FILTER (WHERE length(chosen[1].content) > length(rejected[1].content)) / count(*), 1) AS chosen_longer_pct
FROM raw.training_examples
WHERE kind = 'preference'
GROUP BY dataset, version, signal
ORDER BY dataset, version, signal;

-- KTO balance per dataset version and stage: positive and negative rows
-- and their ratio (KTO weighs the two sides by it; NULL when there is no
-- negative row).
SELECT dataset,
       version,
       stage,
       count(*) FILTER (WHERE label = 'positive')                    AS positive,
       count(*) FILTER (WHERE label = 'negative')                    AS negative,
       round(count(*) FILTER (WHERE label = 'positive')
             / nullif(count(*) FILTER (WHERE label = 'negative'), 0), 2) AS positive_per_negative,
       string_agg(DISTINCT signal, ', ' ORDER BY signal)             AS signals
FROM raw.training_examples
WHERE kind = 'kto'
GROUP BY dataset, version, stage
ORDER BY dataset, version,
         list_position(['task_analysis', 'scope', 'precision', 'plan', 'meta_plan', 'part_plan', 'implement'], stage),
         stage;

-- What the evidence of each signal's pairs names: how many carry each key.
SELECT dataset, version, signal, key, count(*) AS pairs
FROM (SELECT dataset, version, signal, unnest(json_keys(evidence)) AS key
      FROM raw.training_examples
      WHERE kind = 'preference' AND evidence IS NOT NULL)
GROUP BY ALL
ORDER BY dataset, version, signal, key;

-- What the evidence says of the chosen answer: tests that passed, tests
-- that did not, no tests recorded (coder_retry, adjustment); for pairs
-- from an eval, the evals and metrics behind them.
SELECT e.dataset,
       e.version,
       e.signal,
       e.stage,
       count(*)                                                                                 AS pairs,
       count(*) FILTER (WHERE json_extract(e.evidence, '$.tests_passed')::BOOLEAN)              AS tests_passed,
       count(*) FILTER (WHERE NOT json_extract(e.evidence, '$.tests_passed')::BOOLEAN)          AS tests_failed,
       count(*) FILTER (WHERE json_extract(e.evidence, '$.tests_passed') IS NULL)               AS no_tests,
       string_agg(DISTINCT r.name || ' #' || r.id || ' ' || json_extract_string(e.evidence, '$.metric'), ', ') AS evals
FROM raw.training_examples e
LEFT JOIN raw.eval_runs r ON r.id = json_extract(e.evidence, '$.eval_run_id')::BIGINT
WHERE e.kind = 'preference'
GROUP BY e.dataset, e.version, e.signal, e.stage
ORDER BY e.dataset, e.version, e.signal,
         list_position(['task_analysis', 'scope', 'precision', 'plan', 'meta_plan', 'part_plan', 'implement'], e.stage),
         e.stage;

-- Teacher-vs-student candidates raw.distill_pairs still has: verified
-- teacher answers to a student's failed call that answered something,
-- per distillation and stage, that no teacher_student pair of any dataset
-- holds yet (a pair names the student's call in its evidence as
-- student_call_id, or the distilled item as its target_id).
SELECT p.name                        AS distillation,
       p.stage,
       count(*)                      AS candidates,
       count(*) FILTER (WHERE p.split = 'validation') AS validation,
       count(DISTINCT p.repo_path)   AS repos,
       count(*) FILTER (WHERE p.checked = 'ground_truth') AS checked_against_ground_truth
FROM raw.distill_pairs p
WHERE p.verified
  AND coalesce(p.student_response, '') <> ''
  AND NOT EXISTS (
      SELECT 1 FROM raw.training_examples e
      WHERE e.kind = 'preference' AND e.signal = 'teacher_student'
        AND (json_extract(e.evidence, '$.student_call_id')::BIGINT = p.student_call_id
             OR e.target_id = p.item_id))
GROUP BY p.name, p.stage
ORDER BY p.name,
         list_position(['task_analysis', 'scope', 'precision', 'plan', 'meta_plan', 'part_plan', 'implement'], p.stage),
         p.stage;
