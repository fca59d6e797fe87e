-- cra distill: teacher answers through remote APIs, cached, budgeted,
-- resumable and verified against ground truth.
--
-- A distillation has a name (the dataset it builds, default "distilled"):
-- its spending adds up across runs, its outcomes say which items are done.
-- The request cache is shared by every name: a request is paid for once.

-- One row per run that may call the teacher (dry runs write none). A run
-- still 'running' when the next run of its name starts was killed: it is
-- marked 'interrupted'.
CREATE SEQUENCE distill_runs_id_seq;
CREATE TABLE distill_runs (
    id           BIGINT PRIMARY KEY DEFAULT nextval('distill_runs_id_seq'),
    name         VARCHAR NOT NULL,
    teacher      VARCHAR NOT NULL,           -- the teacher model
    source       VARCHAR NOT NULL,           -- synthetic, failed-runs
    stages       VARCHAR[] NOT NULL,
    batch        BOOLEAN NOT NULL,           -- through the Batch API
    budget_usd   DOUBLE,                     -- --budget-usd: the cap on the name's total spending; NULL for none
    options      JSON,                       -- the rest of the selection (repos, sample, seed, max calls)
    cra_version  VARCHAR,
    started_at   TIMESTAMPTZ NOT NULL,
    finished_at  TIMESTAMPTZ,
    status       VARCHAR NOT NULL,           -- running, ok, partial (a limit stopped it, or requests failed), failed, interrupted
    stopped      VARCHAR                     -- what stopped it before the end: budget, max_calls; NULL otherwise
);

-- The request cache: one row per request the teacher answered, keyed by
-- the sha256 of its canonical form (model, messages, parameters: the body
-- as sent, without URL or key). A request with a row is never sent again.
CREATE TABLE distill_cache (
    request_key        VARCHAR NOT NULL,     -- sha256 hex of the canonical request
    model              VARCHAR NOT NULL,
    response           VARCHAR NOT NULL,     -- the answer, thinking left out
    thinking           VARCHAR,
    prompt_tokens      INTEGER,              -- as the provider reported them; NULL when it did not
    cached_tokens      INTEGER,              -- the part of prompt_tokens served from its prompt cache
    completion_tokens  INTEGER,
    cost_usd           DOUBLE NOT NULL,      -- from the usage and [teacher.prices] (batch discount included)
    batch_id           VARCHAR,              -- the provider's batch id; NULL for a live call
    call_task_id       VARCHAR NOT NULL,     -- retrieval_llm_calls.task_id of the call that paid for it
    run_id             BIGINT NOT NULL,      -- distill_runs.id
    created_at         TIMESTAMPTZ NOT NULL
);

-- Spending: a row per request sent, written before it is sent with the
-- most it can cost (reserved_usd), settled with what it cost. A row never
-- settled (its run was killed with the request in flight, which the
-- provider may have charged) counts at its reservation.
CREATE TABLE distill_spend (
    run_id        BIGINT NOT NULL,           -- distill_runs.id
    name          VARCHAR NOT NULL,
    request_key   VARCHAR NOT NULL,
    batch         VARCHAR,                   -- distill_batches.id; NULL for a live call
    reserved_usd  DOUBLE NOT NULL,
    settled_usd   DOUBLE,
    reserved_at   TIMESTAMPTZ NOT NULL,
    settled_at    TIMESTAMPTZ
);

-- Batches sent to the Batch API, so a restarted run picks them up: found
-- again by input_file_id when the run died before recording batch_id.
CREATE TABLE distill_batches (
    id              VARCHAR NOT NULL,        -- sha256 of the input file, hex (first 32)
    name            VARCHAR NOT NULL,
    run_id          BIGINT NOT NULL,         -- the run that submitted it
    model           VARCHAR NOT NULL,
    input           VARCHAR NOT NULL,        -- the JSONL input file as uploaded
    custom_ids      VARCHAR[] NOT NULL,      -- the request keys, in input order
    stages          VARCHAR[] NOT NULL,      -- each request's stage, in the same order
    input_file_id   VARCHAR,                 -- NULL until uploaded
    batch_id        VARCHAR,                 -- NULL until created
    status          VARCHAR NOT NULL,        -- pending, uploaded, then the API's (validating, in_progress, ...), downloaded
    output_file_id  VARCHAR,
    error_file_id   VARCHAR,
    created_at      TIMESTAMPTZ NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL
);

-- Each item a teacher answered (a synthetic target, or a student's failed
-- call) and what verification said. Verified answers carry the training
-- example they make (messages: the student's prompt and the answer as the
-- stage's parser reads it back); cra distill registers them as a version
-- of the dataset `name` in training_examples (source 'distilled').
CREATE TABLE distill_outcomes (
    name               VARCHAR NOT NULL,
    item_id            VARCHAR NOT NULL,     -- synthetic_targets.id, or 'call:' || retrieval_llm_calls.id
    source             VARCHAR NOT NULL,     -- synthetic, failed-runs
    stage              VARCHAR NOT NULL,
    task_id            VARCHAR,              -- synthetic_tasks.id of the ground truth; NULL when there is none
    student_call_id    BIGINT,               -- retrieval_llm_calls.id of the student's failed call (failed-runs)
    request_key        VARCHAR NOT NULL,     -- distill_cache.request_key
    call_task_id       VARCHAR NOT NULL,     -- retrieval_llm_calls.task_id of the teacher's call
    run_id             BIGINT NOT NULL,
    repo_path          VARCHAR NOT NULL,
    commit             VARCHAR,
    split              VARCHAR NOT NULL,     -- train, validation (by a hash of repo and commit, as curate-data)
    verified           BOOLEAN NOT NULL,
    checked            VARCHAR NOT NULL,     -- ground_truth, or parse (no ground truth: parsed and validated only)
    reason             VARCHAR NOT NULL,     -- why it was rejected, or what it met
    score              DOUBLE,               -- the stage's figure (scope recall, precision F1, plan file F1, 1 for a reproduced commit)
    example_id         VARCHAR,              -- training_examples.id of its example; NULL unless verified
    messages           STRUCT(role VARCHAR, content VARCHAR)[],  -- the example; NULL unless verified
    prompt_tokens      INTEGER,
    completion_tokens  INTEGER,
    created_at         TIMESTAMPTZ NOT NULL
);

-- Teacher against student on the same prompt, for preference pairs: the
-- student's failed call and the teacher's answer to its logged prompt.
CREATE VIEW distill_pairs AS
SELECT o.name, o.stage, o.item_id, o.student_call_id, s.task_id AS student_task_id,
       s.system_prompt, s.prompt, s.response AS student_response, c.response AS teacher_response,
       o.verified, o.checked, o.reason, o.repo_path, o.split, o.call_task_id
FROM distill_outcomes o
JOIN retrieval_llm_calls s ON s.id = o.student_call_id
JOIN distill_cache c ON c.request_key = o.request_key;
