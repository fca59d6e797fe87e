-- cra eval: the agent replayed on held-out synthetic tasks and scored stage
-- by stage against their ground truth.
--
-- One eval_runs row per (name, oracle set): a re-run of the same name and
-- oracle set resumes it (tasks already done are not run again). oracle lists
-- the stages whose model output was replaced by ground truth.
CREATE SEQUENCE eval_runs_id_seq;
CREATE TABLE eval_runs (
    id           BIGINT PRIMARY KEY DEFAULT nextval('eval_runs_id_seq'),
    name         VARCHAR NOT NULL,
    oracle       VARCHAR[] NOT NULL,          -- sorted; [] for none
    split        VARCHAR NOT NULL,            -- validation, holdout or all-held-out
    repos        VARCHAR[] NOT NULL,          -- [] for every mined repository
    stages       VARCHAR[] NOT NULL,          -- the stages scored
    sample       INTEGER,                     -- NULL: every held-out task
    seed         BIGINT NOT NULL,
    models       JSON NOT NULL,               -- stage -> model that served it
    cra_version  VARCHAR,
    started_at   TIMESTAMPTZ NOT NULL,
    finished_at  TIMESTAMPTZ,
    status       VARCHAR NOT NULL             -- running, complete, partial (some tasks failed to run), interrupted
);

-- One row per task an eval ran, written when the task is done (scored or
-- failed to run), in the same transaction as its eval_results: a task with
-- a row is never run again by a resumed eval.
CREATE TABLE eval_tasks (
    eval_run_id  BIGINT NOT NULL,             -- eval_runs.id
    task_id      VARCHAR NOT NULL,            -- synthetic_tasks.id
    repo_path    VARCHAR NOT NULL,
    task_run_id  BIGINT,                      -- task_runs.id of the agent's run; NULL if it never started
    status       VARCHAR NOT NULL,            -- scored, error (infrastructure, not the model)
    error        VARCHAR,
    model_ms     BIGINT NOT NULL DEFAULT 0,   -- latency of the run's model calls
    elapsed_ms   BIGINT NOT NULL DEFAULT 0,
    finished_at  TIMESTAMPTZ NOT NULL
);

-- Scores: stage is a pipeline stage (task_analysis, scope, precision, plan,
-- implement) or end_to_end. Every scored stage has a metric `correct`
-- (1 when the stage's output is right against ground truth by the stage's
-- rule, else 0), which train-plan's failure attribution reads, beside the
-- stage's own metrics (recall, precision, f1, accuracy, macro_f1, success,
-- ...). value is in [0, 1].
CREATE TABLE eval_results (
    eval_run_id  BIGINT NOT NULL,             -- eval_runs.id
    task_id      VARCHAR NOT NULL,            -- synthetic_tasks.id
    task_run_id  BIGINT,                      -- task_runs.id
    stage        VARCHAR NOT NULL,
    metric       VARCHAR NOT NULL,
    value        DOUBLE NOT NULL
);

-- The child commit's own test result, run once per (repository, commit,
-- test command) and reused by every eval: an implement pass is judged
-- against what the real change achieved.
CREATE TABLE eval_commit_tests (
    repo_path     VARCHAR NOT NULL,
    commit        VARCHAR NOT NULL,
    test_command  VARCHAR NOT NULL,
    success       BOOLEAN NOT NULL,
    output_tail   VARCHAR,
    ran_at        TIMESTAMPTZ NOT NULL
);
