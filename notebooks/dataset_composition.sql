-- Dataset composition: what each curated dataset holds.
-- Run with: cra sql -f notebooks/dataset_composition.sql

-- Examples per dataset, stage and split, with token sizes.
SELECT dataset,
       stage,
       split,
       count(*)                                        AS examples,
       round(avg(prompt_tokens + completion_tokens))   AS avg_tokens,
       max(prompt_tokens + completion_tokens)          AS max_tokens
FROM raw.training_examples
GROUP BY ALL
ORDER BY dataset, stage, split;

-- Share of each repository in each dataset and stage: one repository
-- should not dominate ([curate] per_repo_cap).
SELECT dataset,
       stage,
       repo_path,
       count(*)                                                                          AS examples,
       round(100.0 * count(*) / sum(count(*)) OVER (PARTITION BY dataset, stage), 1)     AS pct
FROM raw.training_examples
GROUP BY dataset, stage, repo_path
ORDER BY dataset, stage, examples DESC;

-- What the filters dropped, per dataset and stage.
SELECT name AS dataset, stage_name AS stage, d.key AS reason, d.value::INTEGER AS dropped
FROM raw.training_datasets, json_each(dropped) AS d
ORDER BY dataset, stage, dropped DESC;
