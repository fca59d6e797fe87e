-- cra bootstrap: commits a history walk delivered that no run recorded
-- (outside --since, or past --max-commits), with what later runs need of
-- them: their parents (the walk stops at them, and starts below them where
-- a parent is neither recorded nor walked) and their committer time and
-- changed paths (co-change counts see every commit before the one mined).
-- So a nightly --since run neither walks nor diffs the older history again;
-- the run whose --since (or none) takes one in walks it then and mines it.
-- A row is deleted with the batch that records its commit, and readers skip
-- any commit bootstrap_commits has (an imported shard may record it). Rows
-- are what the walk computes from git alone: one lost to a kill costs a walk.
CREATE TABLE bootstrap_walked (
    repo_path     VARCHAR NOT NULL,
    commit        VARCHAR NOT NULL,
    parents       VARCHAR[] NOT NULL,
    committed_at  TIMESTAMPTZ NOT NULL,       -- committer time
    files         VARCHAR[] NOT NULL          -- paths changed against the first parent; empty for merges
);
