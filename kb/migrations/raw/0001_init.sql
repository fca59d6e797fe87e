-- Raw store: everything that happened (spec/schemas.md section 2).
-- Append-only and never rebuilt: losing it loses training data.
--
-- Conventions for every migration of this store:
--   * ids come from one sequence per table (DEFAULT nextval);
--   * no FOREIGN KEY (relationships are named in comments);
--   * PRIMARY KEY/UNIQUE only on small tables; the call and decision logs grow
--     large and are bulk-appended, so they carry none;
--   * free-form model output is VARCHAR (it may not parse); JSON is for
--     structured documents we write ourselves; known shapes are lists/structs.

CREATE SEQUENCE index_runs_id_seq;
CREATE TABLE index_runs (
    id             BIGINT PRIMARY KEY DEFAULT nextval('index_runs_id_seq'),
    repo_path      VARCHAR NOT NULL,
    files_scanned  INTEGER NOT NULL,
    files_changed  INTEGER NOT NULL,
    duration_ms    BIGINT NOT NULL,
    status         VARCHAR NOT NULL,
    timestamp      TIMESTAMPTZ NOT NULL
);

CREATE SEQUENCE enrichment_outputs_id_seq;
CREATE TABLE enrichment_outputs (
    id                  BIGINT NOT NULL DEFAULT nextval('enrichment_outputs_id_seq'),
    task_id             VARCHAR,              -- NULL for a standalone `cra enrich`
    file_id             BIGINT NOT NULL,      -- curated files.id at the time
    file_path           VARCHAR,              -- stable across curated rebuilds
    content_hash        VARCHAR,              -- the content the model saw
    model               VARCHAR NOT NULL,
    purpose             VARCHAR,
    module              VARCHAR,
    domain              VARCHAR,
    concepts            VARCHAR[],
    public_api_surface  VARCHAR[],
    complexity_notes    VARCHAR,
    system_prompt       VARCHAR,
    raw_prompt          VARCHAR NOT NULL,
    raw_response        VARCHAR NOT NULL,
    valid               BOOLEAN NOT NULL DEFAULT true,
    error               VARCHAR,
    promoted            BOOLEAN NOT NULL DEFAULT false,
    timestamp           TIMESTAMPTZ NOT NULL
);

CREATE SEQUENCE retrieval_llm_calls_id_seq;
CREATE TABLE retrieval_llm_calls (
    id                 BIGINT NOT NULL DEFAULT nextval('retrieval_llm_calls_id_seq'),
    task_id            VARCHAR NOT NULL,
    call_type          VARCHAR NOT NULL,      -- task_analysis, scope, precision, assembly_refilter, ...
    stage_name         VARCHAR,               -- NULL for task_analysis
    model              VARCHAR NOT NULL,
    provider           VARCHAR,
    system_prompt      VARCHAR,
    prompt             VARCHAR NOT NULL,
    response           VARCHAR,               -- NULL when the call failed
    prompt_tokens      INTEGER,               -- NULL when the provider omits them
    completion_tokens  INTEGER,
    latency_ms         BIGINT NOT NULL,
    error              VARCHAR,               -- NULL on success
    timestamp          TIMESTAMPTZ NOT NULL
);

CREATE SEQUENCE retrieval_decisions_id_seq;
CREATE TABLE retrieval_decisions (
    id            BIGINT NOT NULL DEFAULT nextval('retrieval_decisions_id_seq'),
    task_id       VARCHAR NOT NULL,
    stage         VARCHAR NOT NULL,
    file_id       BIGINT NOT NULL,
    symbol_id     BIGINT,                     -- NULL for file-level decisions
    detail_level  VARCHAR,                    -- primary, supporting, type_context, excluded (symbols)
    tier          VARCHAR,
    included      BOOLEAN NOT NULL,
    reason        VARCHAR,
    timestamp     TIMESTAMPTZ NOT NULL
);

CREATE SEQUENCE task_runs_id_seq;
CREATE TABLE task_runs (
    id                BIGINT PRIMARY KEY DEFAULT nextval('task_runs_id_seq'),
    task_id           VARCHAR NOT NULL UNIQUE,
    repo_path         VARCHAR NOT NULL,
    mode              VARCHAR NOT NULL,       -- plan, implement, train_plan, curate_data
    execute_model     VARCHAR NOT NULL,
    context_window    INTEGER NOT NULL,
    reserved_tokens   INTEGER NOT NULL,
    stages            VARCHAR[] NOT NULL,
    plan_artifact     VARCHAR,                -- path of the plan given to implement
    success           BOOLEAN,                -- NULL until finalized
    total_tokens      BIGINT,
    total_latency_ms  BIGINT,
    final_diff        VARCHAR,                -- implement mode
    final_plan        JSON,                   -- plan mode
    timestamp         TIMESTAMPTZ NOT NULL
);

CREATE SEQUENCE run_attempts_id_seq;
CREATE TABLE run_attempts (
    id                 BIGINT PRIMARY KEY DEFAULT nextval('run_attempts_id_seq'),
    task_run_id        BIGINT NOT NULL,       -- task_runs.id
    attempt            INTEGER NOT NULL,
    prompt_tokens      INTEGER,
    completion_tokens  INTEGER,
    latency_ms         BIGINT NOT NULL,
    raw_response       VARCHAR NOT NULL,
    patch_applied      BOOLEAN NOT NULL,
    timestamp          TIMESTAMPTZ NOT NULL
);

CREATE SEQUENCE validation_results_id_seq;
CREATE TABLE validation_results (
    id                 BIGINT PRIMARY KEY DEFAULT nextval('validation_results_id_seq'),
    attempt_id         BIGINT NOT NULL,       -- run_attempts.id
    success            BOOLEAN NOT NULL,
    test_output        VARCHAR,
    lint_output        VARCHAR,
    type_check_output  VARCHAR,
    failing_tests      VARCHAR[]
);

CREATE SEQUENCE session_archives_id_seq;
CREATE TABLE session_archives (
    id            BIGINT PRIMARY KEY DEFAULT nextval('session_archives_id_seq'),
    task_id       VARCHAR NOT NULL,
    session_blob  BLOB NOT NULL,              -- the session store's file, as bytes
    archived_at   TIMESTAMPTZ NOT NULL
);

CREATE SEQUENCE training_plans_id_seq;
CREATE TABLE training_plans (
    id                   BIGINT PRIMARY KEY DEFAULT nextval('training_plans_id_seq'),
    task_id              VARCHAR NOT NULL,    -- task_id of the train-plan run
    target_stage         VARCHAR NOT NULL,
    base_model           VARCHAR NOT NULL,    -- coding or reasoning
    source               VARCHAR NOT NULL DEFAULT 'logged',  -- logged or synthetic
    data_criteria        JSON NOT NULL,
    hyperparameters      JSON,
    improvement_targets  JSON,
    raw_plan             VARCHAR NOT NULL,
    timestamp            TIMESTAMPTZ NOT NULL
);

CREATE SEQUENCE training_datasets_id_seq;
CREATE TABLE training_datasets (
    id                BIGINT PRIMARY KEY DEFAULT nextval('training_datasets_id_seq'),
    training_plan_id  BIGINT NOT NULL,        -- training_plans.id
    stage_name        VARCHAR NOT NULL,
    base_model        VARCHAR NOT NULL,
    source            VARCHAR NOT NULL DEFAULT 'logged',
    dataset_path      VARCHAR NOT NULL,
    example_count     INTEGER NOT NULL,
    positive_count    INTEGER NOT NULL,
    negative_count    INTEGER NOT NULL,
    format            VARCHAR NOT NULL DEFAULT 'jsonl',
    timestamp         TIMESTAMPTZ NOT NULL
);

CREATE SEQUENCE adapter_registry_id_seq;
CREATE TABLE adapter_registry (
    id             BIGINT PRIMARY KEY DEFAULT nextval('adapter_registry_id_seq'),
    dataset_id     BIGINT NOT NULL,           -- training_datasets.id
    stage_name     VARCHAR NOT NULL,
    base_model     VARCHAR NOT NULL,
    model_tag      VARCHAR NOT NULL,
    training_loss  DOUBLE,
    eval_metrics   JSON,
    deployed       BOOLEAN NOT NULL DEFAULT false,
    trained_at     TIMESTAMPTZ NOT NULL
);

CREATE SEQUENCE orchestrator_runs_id_seq;
CREATE TABLE orchestrator_runs (
    id                BIGINT PRIMARY KEY DEFAULT nextval('orchestrator_runs_id_seq'),
    task_id           VARCHAR NOT NULL,
    repo_path         VARCHAR NOT NULL,
    task_description  VARCHAR NOT NULL,
    total_parts       INTEGER,
    total_steps       INTEGER,
    parts_completed   INTEGER NOT NULL DEFAULT 0,
    steps_completed   INTEGER NOT NULL DEFAULT 0,
    status            VARCHAR NOT NULL,       -- running, complete, partial, failed
    timestamp         TIMESTAMPTZ NOT NULL,
    completed_at      TIMESTAMPTZ
);

CREATE SEQUENCE orchestrator_passes_id_seq;
CREATE TABLE orchestrator_passes (
    id                   BIGINT PRIMARY KEY DEFAULT nextval('orchestrator_passes_id_seq'),
    orchestrator_run_id  BIGINT NOT NULL,     -- orchestrator_runs.id
    task_run_id          BIGINT NOT NULL,     -- task_runs.id
    pass_type            VARCHAR NOT NULL,    -- meta_plan, part_plan, step_implement, adjustment
    part_id              VARCHAR,
    step_id              VARCHAR,
    sequence_order       INTEGER NOT NULL,
    timestamp            TIMESTAMPTZ NOT NULL
);
