-- cra bootstrap: what was decided about each merge commit examined for a
-- multi-part task. Merge tasks come from every recorded merge that has no
-- task and no decision yet, whichever run recorded it: a run killed or
-- interrupted between recording a merge and building its task leaves it to
-- the next run, and a merge rejected once is not examined again every night.
-- A merge whose branch holds a commit not mined yet (outside an earlier
-- --since) gets no row: the run that mines that commit examines it.
-- Merges recorded before this table existed are examined by the next run.
CREATE TABLE bootstrap_merges (
    run_id       BIGINT NOT NULL,            -- bootstrap_runs.id of the run that examined it
    repo_path    VARCHAR NOT NULL,
    commit       VARCHAR NOT NULL,           -- the merge commit
    parts        INTEGER NOT NULL,           -- commits its second parent brings (the branch)
    outcome      VARCHAR NOT NULL,           -- 'task' or why not: branch_too_short, branch_too_long, branch_not_a_line, part_not_verified
    examined_at  TIMESTAMPTZ NOT NULL
);

-- The merge tasks built before: decided.
INSERT INTO bootstrap_merges (run_id, repo_path, commit, parts, outcome, examined_at)
SELECT k.run_id, k.repo_path, k.commit, json_array_length(t.target, '$.parts'), 'task', k.created_at
FROM synthetic_tasks k
JOIN bootstrap_commits c ON c.repo_path = k.repo_path AND c.commit = k.commit AND len(c.parents) = 2
JOIN synthetic_targets t ON t.task_id = k.id AND t.stage = 'meta_plan';
