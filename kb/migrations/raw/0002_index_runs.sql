-- What `cra index` reports per repository run beyond the spec columns.
ALTER TABLE index_runs ADD COLUMN rev VARCHAR;                 -- 'worktree' or the indexed commit hash
ALTER TABLE index_runs ADD COLUMN files_deleted INTEGER DEFAULT 0;
ALTER TABLE index_runs ADD COLUMN files_skipped INTEGER DEFAULT 0;
ALTER TABLE index_runs ADD COLUMN files_failed INTEGER DEFAULT 0;
ALTER TABLE index_runs ADD COLUMN commits_added INTEGER DEFAULT 0;
ALTER TABLE index_runs ADD COLUMN skip_reasons STRUCT(reason VARCHAR, files INTEGER)[];
ALTER TABLE index_runs ADD COLUMN error VARCHAR;               -- NULL unless status is 'failed'
