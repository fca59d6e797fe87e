-- Dataset composition: what each curated dataset holds.
-- Run with: cra sql -f notebooks/dataset_composition.sql

-- The versions of each dataset: each curate-data run adds one.
SELECT name AS dataset, version, examples, created_at, cra_version
FROM raw.dataset_versions
ORDER BY name, version;

-- Examples per dataset version, stage and split, with token sizes.
SELECT dataset,
       version,
       stage,
       split,
       count(*)                                        AS examples,
       round(avg(prompt_tokens + completion_tokens))   AS avg_tokens,
       max(prompt_tokens + completion_tokens)          AS max_tokens
FROM raw.training_examples
GROUP BY ALL
ORDER BY dataset, version, stage, split;

-- Share of each repository in each dataset version and stage: one
-- repository should not dominate ([curate] per_repo_cap).
SELECT dataset,
       version,
       stage,
       repo_path,
       count(*)                                                                                AS examples,
       round(100.0 * count(*) / sum(count(*)) OVER (PARTITION BY dataset, version, stage), 1)  AS pct
FROM raw.training_examples
GROUP BY dataset, version, stage, repo_path
ORDER BY dataset, version, stage, examples DESC;

-- What the filters dropped, per dataset version.
SELECT name AS dataset, version, d.key AS reason, d.value::INTEGER AS dropped
FROM raw.dataset_versions, json_each(dropped) AS d
ORDER BY dataset, version, dropped DESC;
