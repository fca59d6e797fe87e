-- cra curate-data / cra datasets: training examples a dataset is made of.
--
-- A dataset (one name) has one training_datasets row per stage; its examples
-- are rows of training_examples with the same dataset name. Ids are
-- deterministic (sha256 of dataset name + source target id), so re-running
-- curate with the same inputs gives the same rows, and loads anti-join on id.

ALTER TABLE training_datasets ADD COLUMN name VARCHAR;          -- the dataset's name (--name)
ALTER TABLE training_datasets ADD COLUMN split_counts JSON;     -- {"train": n, "validation": m}
ALTER TABLE training_datasets ADD COLUMN dropped JSON;          -- {"reason": count, ...}
ALTER TABLE training_datasets ADD COLUMN criteria JSON;         -- the selection used

CREATE TABLE training_examples (
    id                 VARCHAR NOT NULL,      -- sha256(dataset, target_id), hex
    dataset            VARCHAR NOT NULL,      -- training_datasets.name
    stage              VARCHAR NOT NULL,      -- scope, precision, plan, implement, ...
    source             VARCHAR NOT NULL,      -- synthetic, logged, distilled
    split              VARCHAR NOT NULL,      -- train, validation
    label              VARCHAR NOT NULL,      -- positive (SFT); chosen/rejected pairs come later
    repo_path          VARCHAR NOT NULL,
    commit             VARCHAR,               -- NULL for logged runs without one
    target_id          VARCHAR NOT NULL,      -- synthetic_targets.id (or the logged row it came from)
    messages           STRUCT(role VARCHAR, content VARCHAR)[] NOT NULL,
    prompt_tokens      INTEGER NOT NULL,      -- estimate: chars/4 with the safety margin
    completion_tokens  INTEGER NOT NULL,
    created_at         TIMESTAMPTZ NOT NULL
);
