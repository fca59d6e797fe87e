-- cra bootstrap: history replay into synthetic ground truth.
--
-- Resumability: a repository's commits are written in the order the walk
-- delivers them (parents first), each batch in one transaction together with
-- the ground truth of its qualifying commits, so what a kill leaves behind is
-- closed under ancestry and a re-run starts after it. Ids are deterministic
-- (sha256 of repo + commit [+ stage]) and loads anti-join on them: a re-run
-- never duplicates.

CREATE SEQUENCE bootstrap_runs_id_seq;
CREATE TABLE bootstrap_runs (
    id           BIGINT PRIMARY KEY DEFAULT nextval('bootstrap_runs_id_seq'),
    started_at   TIMESTAMPTZ NOT NULL,
    finished_at  TIMESTAMPTZ,                 -- NULL while running or when killed
    repos        INTEGER NOT NULL,
    failed       INTEGER,                     -- repositories that failed, NULL until finished
    status       VARCHAR NOT NULL,            -- running, ok, partial, interrupted
    options      JSON NOT NULL                -- the filter and flags used
);

-- One row per repository: the watermark and the last outcome.
CREATE TABLE bootstrap_repos (
    repo_path    VARCHAR PRIMARY KEY,         -- absolute path of the clone
    watermark    VARCHAR[] NOT NULL,          -- ref tips (commit hashes) fully processed last time
    last_run_id  BIGINT NOT NULL,             -- bootstrap_runs.id
    last_status  VARCHAR NOT NULL,            -- ok, up_to_date, failed, interrupted
    last_error   VARCHAR,                     -- NULL unless failed
    updated_at   TIMESTAMPTZ NOT NULL
);

-- Every commit seen, with its outcome: the funnel, and the co-change history
-- later runs need (files of commits committed before a commit).
CREATE TABLE bootstrap_commits (
    run_id         BIGINT NOT NULL,           -- bootstrap_runs.id of the run that saw it
    repo_path      VARCHAR NOT NULL,
    commit         VARCHAR NOT NULL,
    parents        VARCHAR[] NOT NULL,
    committed_at   TIMESTAMPTZ NOT NULL,      -- committer time
    files          VARCHAR[] NOT NULL,        -- paths changed against the first parent; empty for merges
    insertions     INTEGER NOT NULL,
    deletions      INTEGER NOT NULL,
    outcome        VARCHAR NOT NULL,          -- 'verified' or the first rule the commit failed
    detail         VARCHAR                    -- why, in a few words
);

CREATE VIEW bootstrap_funnel AS
    SELECT run_id, repo_path, outcome, count(*) AS commits
    FROM bootstrap_commits GROUP BY ALL;

-- One row per qualifying commit.
CREATE TABLE synthetic_tasks (
    id            VARCHAR NOT NULL,           -- sha256(repo_path, commit), hex
    run_id        BIGINT NOT NULL,
    repo_path     VARCHAR NOT NULL,
    commit        VARCHAR NOT NULL,
    parent        VARCHAR NOT NULL,           -- the first parent the commit is built against
    author        VARCHAR NOT NULL,
    committed_at  TIMESTAMPTZ NOT NULL,
    message       VARCHAR NOT NULL,           -- as written
    task          VARCHAR NOT NULL,           -- the message cleaned into a task description
    files_changed INTEGER NOT NULL,
    insertions    INTEGER NOT NULL,
    deletions     INTEGER NOT NULL,
    source        VARCHAR NOT NULL DEFAULT 'synthetic',
    created_at    TIMESTAMPTZ NOT NULL
);

-- One row per task and stage (scope, precision, plan, implement). target is
-- the structured ground truth, in the JSON shape of kb's ScopeTarget,
-- PrecisionTarget, PlanArtifact and ImplementTarget: prompt text is rendered
-- later by curate, so a prompt change re-renders without re-mining.
CREATE TABLE synthetic_targets (
    id            VARCHAR NOT NULL,           -- sha256(repo_path, commit, stage), hex
    task_id       VARCHAR NOT NULL,           -- synthetic_tasks.id
    repo_path     VARCHAR NOT NULL,
    commit        VARCHAR NOT NULL,
    stage         VARCHAR NOT NULL,
    target        JSON NOT NULL,
    source        VARCHAR NOT NULL DEFAULT 'synthetic',
    created_at    TIMESTAMPTZ NOT NULL
);
