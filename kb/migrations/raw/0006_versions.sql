-- Versions. Datasets are versioned: each `cra curate-data` run under a name adds the next
-- version and keeps the earlier ones, so a training script that pinned
-- NAME@N exports the same rows again.
--
-- A version is visible once its dataset_versions row exists: curate writes
-- the examples first (in bounded transactions), then the version's rows in
-- one transaction. A killed run leaves examples of a version without that
-- row; the next run takes the same version number and clears them first.

ALTER TABLE training_examples ADD COLUMN version INTEGER DEFAULT 1;
ALTER TABLE training_datasets ADD COLUMN version INTEGER DEFAULT 1;

-- Rows a killed run of the earlier, unversioned curate left pending.
DELETE FROM training_examples WHERE contains(dataset, chr(0));

-- One row per version of a dataset: what is recorded once per dataset
-- (drop counts, selection criteria, the cra that built it); training_datasets
-- keeps one row per stage with its counts.
CREATE TABLE dataset_versions (
    name              VARCHAR NOT NULL,
    version           INTEGER NOT NULL,       -- 1, 2, ... per name
    training_plan_id  BIGINT NOT NULL,        -- training_plans.id
    examples          INTEGER NOT NULL,
    dropped           JSON,                   -- {"reason": count, ...}
    criteria          JSON,                   -- the selection used
    cra_version       VARCHAR,
    created_at        TIMESTAMPTZ NOT NULL
);

INSERT INTO dataset_versions
    SELECT name, 1, any_value(training_plan_id), sum(example_count), any_value(dropped), any_value(criteria), NULL, min(timestamp)
    FROM training_datasets WHERE name IS NOT NULL GROUP BY name;

-- The cra that wrote a run (internal/version: module version and revision).
ALTER TABLE index_runs ADD COLUMN cra_version VARCHAR;
ALTER TABLE bootstrap_runs ADD COLUMN cra_version VARCHAR;
