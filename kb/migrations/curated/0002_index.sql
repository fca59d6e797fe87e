-- What `cra index` needs beyond the spec tables (DuckDB cannot add a column
-- with a constraint, so added columns carry defaults, not NOT NULL): the facts it must keep to
-- re-resolve edges without re-parsing unchanged files, the skips it records,
-- per-path history figures, and the CGRAG code_index view.

-- repos: what was indexed and whether derived tables need recomputing.
ALTER TABLE repos ADD COLUMN tree_rev VARCHAR;          -- 'worktree', or the commit hash whose tree was indexed
ALTER TABLE repos ADD COLUMN head_commit VARCHAR;       -- newest commit whose history is loaded; NULL without history
ALTER TABLE repos ADD COLUMN is_git BOOLEAN DEFAULT false;
-- true while files or commits changed since dependencies, symbol_references,
-- file_commits and co_changes were last derived (set in the same
-- transaction as the change, cleared in the one that derives them).
ALTER TABLE repos ADD COLUMN derived_stale BOOLEAN DEFAULT true;

ALTER TABLE files ADD COLUMN error_nodes INTEGER DEFAULT 0;   -- tree-sitter ERROR/MISSING nodes

-- symbols: Go receiver type and the CGRAG facts (spec/cgrag-qa.md "Code Index").
ALTER TABLE symbols ADD COLUMN receiver VARCHAR;
ALTER TABLE symbols ADD COLUMN raises VARCHAR[];
ALTER TABLE symbols ADD COLUMN error_strings VARCHAR[];
ALTER TABLE symbols ADD COLUMN mutates VARCHAR[];

-- imports as written; dependencies are resolved from them.
CREATE TABLE imports (
    file_id    BIGINT NOT NULL,                -- files.id
    line       INTEGER NOT NULL,
    kind       VARCHAR NOT NULL,               -- import, from, require, dynamic, export_from
    module     VARCHAR NOT NULL,               -- without Python's leading dots
    level      INTEGER NOT NULL DEFAULT 0,     -- leading dots of a Python relative import
    names      STRUCT(name VARCHAR, alias VARCHAR)[],
    alias      VARCHAR,
    type_only  BOOLEAN NOT NULL DEFAULT false
);

-- names used by symbols, as written; symbol_references are resolved from them.
CREATE TABLE name_references (
    file_id    BIGINT NOT NULL,                -- files.id
    symbol_id  BIGINT,                         -- symbols.id; NULL for module-level code
    kind       VARCHAR NOT NULL,               -- call, inherit, type_ref
    name       VARCHAR NOT NULL,               -- "foo", "self.bar", "pkg.Func", ".method"
    line       INTEGER NOT NULL
);

-- paths of the indexed tree that were not indexed, and why.
CREATE TABLE skipped_files (
    repo_id     BIGINT NOT NULL,               -- repos.id
    path        VARCHAR NOT NULL,              -- a directory ends with '/'
    reason      VARCHAR NOT NULL,              -- binary, too_large, vendored, generated, minified, gitignored, symlink, symlink_outside, submodule, unreadable
    detail      VARCHAR,
    size_bytes  BIGINT
);

ALTER TABLE commits ADD COLUMN parents VARCHAR[];
ALTER TABLE commits ADD COLUMN is_merge BOOLEAN DEFAULT false;

-- per-path figures of `git log --numstat --no-renames`; file_commits and
-- co_changes are derived from it for the files of the indexed tree.
CREATE TABLE commit_files (
    commit_id   BIGINT NOT NULL,               -- commits.id
    path        VARCHAR NOT NULL,
    insertions  INTEGER NOT NULL,
    deletions   INTEGER NOT NULL,
    is_binary   BOOLEAN NOT NULL DEFAULT false
);

-- The CGRAG code index (spec/cgrag-qa.md): one row per function, method and
-- class, with calls/called_by as qualified names ("Class.method", "func").
CREATE VIEW code_index AS
WITH q AS (
    SELECT s.id, s.file_id, s.name, s.kind, s.start_line, s.end_line, s.signature,
           s.raises, s.mutates, s.error_strings,
           CASE WHEN p.name IS NOT NULL AND s.kind = 'method' THEN p.name || '.' || s.name
                WHEN s.receiver IS NOT NULL THEN s.receiver || '.' || s.name
                ELSE s.name END AS qualified_name
    FROM symbols s LEFT JOIN symbols p ON p.id = s.parent_symbol_id
),
calls AS (
    SELECT r.caller_symbol_id AS id, list(DISTINCT q.qualified_name ORDER BY q.qualified_name) AS names
    FROM symbol_references r JOIN q ON q.id = r.callee_symbol_id
    WHERE r.reference_kind = 'call' GROUP BY ALL
),
called_by AS (
    SELECT r.callee_symbol_id AS id, list(DISTINCT q.qualified_name ORDER BY q.qualified_name) AS names
    FROM symbol_references r JOIN q ON q.id = r.caller_symbol_id
    WHERE r.reference_kind = 'call' GROUP BY ALL
),
docs AS (
    SELECT symbol_id AS id, left(min(content), 200) AS docstring
    FROM docstrings WHERE symbol_id IS NOT NULL GROUP BY ALL
)
SELECT q.id, f.repo_id, f.path AS file_path, q.name AS symbol_name, q.qualified_name,
       q.kind AS symbol_type, q.start_line AS line_start, q.end_line AS line_end,
       q.signature, docs.docstring,
       coalesce(calls.names, []::VARCHAR[]) AS calls,
       coalesce(called_by.names, []::VARCHAR[]) AS called_by,
       coalesce(q.raises, []::VARCHAR[]) AS raises,
       coalesce(q.mutates, []::VARCHAR[]) AS mutates,
       coalesce(q.error_strings, []::VARCHAR[]) AS error_strings,
       f.content_hash AS source_hash
FROM q
JOIN files f ON f.id = q.file_id
LEFT JOIN calls ON calls.id = q.id
LEFT JOIN called_by ON called_by.id = q.id
LEFT JOIN docs ON docs.id = q.id
WHERE q.kind IN ('function', 'method', 'class');
