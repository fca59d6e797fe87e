-- Curated store: the code knowledge base (spec/schemas.md section 1).
-- Derived from repositories: `cra index` can always rebuild it.
--
-- Conventions for every migration of this store:
--   * ids come from one sequence per table (DEFAULT nextval);
--   * no FOREIGN KEY: DuckDB cannot cascade and its FK checks block the
--     delete-then-insert of re-indexing; relationships are named in comments;
--   * PRIMARY KEY only on small tables; bulk tables (symbols, references,
--     history) carry no PRIMARY KEY/UNIQUE: index maintenance slows bulk loads,
--     so uniqueness comes from the loader (deterministic keys, anti-joins);
--   * no secondary indexes: DuckDB's zone maps serve the scans we make.

CREATE SEQUENCE repos_id_seq;
CREATE TABLE repos (
    id          BIGINT PRIMARY KEY DEFAULT nextval('repos_id_seq'),
    path        VARCHAR NOT NULL UNIQUE,
    remote_url  VARCHAR,
    indexed_at  TIMESTAMPTZ NOT NULL
);

CREATE SEQUENCE files_id_seq;
CREATE TABLE files (
    id            BIGINT PRIMARY KEY DEFAULT nextval('files_id_seq'),
    repo_id       BIGINT NOT NULL,            -- repos.id
    path          VARCHAR NOT NULL,           -- relative to the repo root, '/' separated
    language      VARCHAR NOT NULL,
    content_hash  VARCHAR NOT NULL,           -- hex SHA-256 of the content
    size_bytes    BIGINT NOT NULL
);

CREATE SEQUENCE symbols_id_seq;
CREATE TABLE symbols (
    id                BIGINT NOT NULL DEFAULT nextval('symbols_id_seq'),
    file_id           BIGINT NOT NULL,        -- files.id
    name              VARCHAR NOT NULL,
    kind              VARCHAR NOT NULL,       -- function, class, method, interface, type_alias, enum, variable
    start_line        INTEGER NOT NULL,
    end_line          INTEGER NOT NULL,
    signature         VARCHAR,                -- source text of the declaration line
    parent_symbol_id  BIGINT                  -- symbols.id
);

CREATE SEQUENCE docstrings_id_seq;
CREATE TABLE docstrings (
    id             BIGINT NOT NULL DEFAULT nextval('docstrings_id_seq'),
    symbol_id      BIGINT,                    -- symbols.id; NULL for module level
    file_id        BIGINT NOT NULL,           -- files.id
    content        VARCHAR NOT NULL,
    format         VARCHAR,                   -- google, numpy, sphinx, jsdoc, plain
    parsed_fields  STRUCT(
        summary  VARCHAR,
        params   STRUCT(name VARCHAR, type VARCHAR, description VARCHAR)[],
        returns  STRUCT(type VARCHAR, description VARCHAR),
        raises   STRUCT(type VARCHAR, description VARCHAR)[]
    )
);

CREATE SEQUENCE inline_comments_id_seq;
CREATE TABLE inline_comments (
    id            BIGINT NOT NULL DEFAULT nextval('inline_comments_id_seq'),
    file_id       BIGINT NOT NULL,            -- files.id
    symbol_id     BIGINT,                     -- innermost enclosing symbols.id; NULL at module level
    line          INTEGER NOT NULL,
    content       VARCHAR NOT NULL,
    kind          VARCHAR,                    -- todo, fixme, hack, note, bug_ref, rationale, general
    is_rationale  BOOLEAN NOT NULL DEFAULT false
);

CREATE SEQUENCE dependencies_id_seq;
CREATE TABLE dependencies (
    id              BIGINT NOT NULL DEFAULT nextval('dependencies_id_seq'),
    source_file_id  BIGINT NOT NULL,          -- files.id (the importer)
    target_file_id  BIGINT NOT NULL,          -- files.id (the imported)
    kind            VARCHAR NOT NULL          -- import, type_ref
);

CREATE SEQUENCE symbol_references_id_seq;
CREATE TABLE symbol_references (
    id                BIGINT NOT NULL DEFAULT nextval('symbol_references_id_seq'),
    caller_symbol_id  BIGINT NOT NULL,        -- symbols.id
    callee_symbol_id  BIGINT NOT NULL,        -- symbols.id
    reference_kind    VARCHAR NOT NULL        -- call, inherit, type_ref
);

CREATE SEQUENCE commits_id_seq;
CREATE TABLE commits (
    id             BIGINT NOT NULL DEFAULT nextval('commits_id_seq'),
    repo_id        BIGINT NOT NULL,           -- repos.id; (repo_id, hash) is unique by the loader
    hash           VARCHAR NOT NULL,
    author         VARCHAR,
    message        VARCHAR,
    timestamp      TIMESTAMPTZ NOT NULL,
    files_changed  INTEGER,
    insertions     INTEGER,
    deletions      INTEGER
);

CREATE TABLE file_commits (
    file_id    BIGINT NOT NULL,               -- files.id
    commit_id  BIGINT NOT NULL                -- commits.id
);

CREATE TABLE co_changes (
    file_a_id         BIGINT NOT NULL,        -- files.id, the smaller of the pair
    file_b_id         BIGINT NOT NULL,        -- files.id
    count             INTEGER NOT NULL DEFAULT 1,
    last_commit_hash  VARCHAR,
    CHECK (file_a_id < file_b_id)
);

CREATE TABLE file_metadata (
    file_id             BIGINT PRIMARY KEY,   -- files.id
    purpose             VARCHAR,
    module              VARCHAR,
    domain              VARCHAR,
    concepts            VARCHAR[],
    public_api_surface  VARCHAR[],
    complexity_notes    VARCHAR
);

CREATE SEQUENCE adapter_metadata_id_seq;
CREATE TABLE adapter_metadata (
    id                 BIGINT PRIMARY KEY DEFAULT nextval('adapter_metadata_id_seq'),
    stage_name         VARCHAR NOT NULL,      -- pipeline stage this adapter serves
    base_model         VARCHAR NOT NULL,      -- coding or reasoning
    model_tag          VARCHAR NOT NULL,      -- adapter identifier for the inference server
    version            INTEGER NOT NULL DEFAULT 1,
    active             BOOLEAN NOT NULL DEFAULT true,
    performance_notes  VARCHAR,
    deployed_at        TIMESTAMPTZ NOT NULL
);
