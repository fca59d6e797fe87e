-- cra adapters: the LoRA adapter registry, the gate's verdicts and the
-- routing events. Replaces adapter_registry (0001), which nothing ever
-- wrote.
DROP TABLE adapter_registry;
DROP SEQUENCE adapter_registry_id_seq;

-- One row per registered version of an adapter: the PEFT directory as
-- `cra adapters add` read it, and its lineage. A re-add of the same
-- weights for the same stages adds nothing; changed weights add version+1.
CREATE TABLE adapters (
    name              VARCHAR NOT NULL,
    version           INTEGER NOT NULL,    -- from 1 per name
    path              VARCHAR NOT NULL,    -- the adapter's directory, absolute
    base_model        VARCHAR NOT NULL,    -- adapter_config.json base_model_name_or_path
    rank              INTEGER NOT NULL,    -- r
    alpha             DOUBLE NOT NULL,     -- lora_alpha
    target_modules    VARCHAR[] NOT NULL,
    weights_file      VARCHAR NOT NULL,    -- adapter_model.safetensors or adapter_model.bin
    sha256            VARCHAR NOT NULL,    -- of the weights file, hex
    size_bytes        BIGINT NOT NULL,
    stages            VARCHAR[] NOT NULL,  -- the stages it was trained for
    dataset           VARCHAR,             -- the dataset it was trained on (dataset_versions.name), NULL if not given
    dataset_version   INTEGER,
    training_plan_id  BIGINT,              -- training_plans.id, NULL if not given
    cra_version       VARCHAR,
    created_at        TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (name, version)
);

-- One row per gate verdict (`cra adapters eval`): the candidate, the two
-- named evals compared, the champions it was judged against and each
-- condition with its figures. Promotion reads the latest of a version.
CREATE SEQUENCE adapter_gates_id_seq;
CREATE TABLE adapter_gates (
    id               BIGINT PRIMARY KEY DEFAULT nextval('adapter_gates_id_seq'),
    adapter          VARCHAR NOT NULL,   -- adapters.name
    version          INTEGER NOT NULL,   -- adapters.version
    stages           VARCHAR[] NOT NULL, -- the stages judged
    baseline_eval    VARCHAR NOT NULL,   -- eval_runs name: the routing as it was
    candidate_eval   VARCHAR NOT NULL,   -- eval_runs name: the same with the candidate
    champions        JSON NOT NULL,      -- stage → NAME@V of the champion judged against, or null
    passed           BOOLEAN NOT NULL,
    conditions       JSON NOT NULL,      -- [{name, passed, figures}]
    report_dir       VARCHAR,
    created_at       TIMESTAMPTZ NOT NULL
);

-- Routing changes, append-only. A stage's champion is the `to` of its
-- latest event (NULL: no champion, the stage's role model answers).
CREATE SEQUENCE adapter_events_id_seq;
CREATE TABLE adapter_events (
    id            BIGINT PRIMARY KEY DEFAULT nextval('adapter_events_id_seq'),
    stage         VARCHAR NOT NULL,
    action        VARCHAR NOT NULL,   -- promote, rollback, force
    from_name     VARCHAR,            -- the champion before, NULL for none
    from_version  INTEGER,
    to_name       VARCHAR,            -- the champion after, NULL for none
    to_version    INTEGER,
    gate_id       BIGINT,             -- adapter_gates.id the promotion rests on
    reason        VARCHAR,            -- --reason of a forced promotion
    actor         VARCHAR NOT NULL,   -- user@host
    created_at    TIMESTAMPTZ NOT NULL
);
