-- Examples of a dataset version still being built. curate-data writes a
-- version's examples here in bounded transactions (distill in the
-- transaction that registers its version), and the one transaction that
-- registers the version (dataset_versions, training_datasets) moves them
-- into training_examples: no reader of training_examples (cra sql, the
-- notebooks, an export, the user's own SQL) ever sees a row of a version
-- that is not registered. A build killed before that leaves its rows here
-- only; the next build of the same dataset name clears them.
CREATE TABLE training_examples_staging (
    id                 VARCHAR NOT NULL,
    dataset            VARCHAR NOT NULL,
    stage              VARCHAR NOT NULL,
    source             VARCHAR NOT NULL,
    split              VARCHAR NOT NULL,
    label              VARCHAR NOT NULL,
    repo_path          VARCHAR NOT NULL,
    commit             VARCHAR,
    target_id          VARCHAR NOT NULL,
    messages           STRUCT(role VARCHAR, content VARCHAR)[] NOT NULL,
    prompt_tokens      INTEGER NOT NULL,
    completion_tokens  INTEGER NOT NULL,
    created_at         TIMESTAMPTZ NOT NULL,
    version            INTEGER NOT NULL,
    kind               VARCHAR DEFAULT 'sft',
    chosen             STRUCT(role VARCHAR, content VARCHAR)[],
    rejected           STRUCT(role VARCHAR, content VARCHAR)[],
    signal             VARCHAR,
    evidence           JSON,
    task_id            VARCHAR
);

-- Rows of versions never registered, which builds killed before this
-- migration left in training_examples (the next build would have cleared
-- them): gone, so that no reader sees them.
DELETE FROM training_examples e
WHERE NOT EXISTS (SELECT 1 FROM dataset_versions v WHERE v.name = e.dataset AND v.version = e.version);
