-- cra eval: how each evaluated commit's replays are judged, decided once
-- per repository, commit and test command from two runs of the test
-- command (at the commit; at its parent with the commit's test files laid
-- over it) and reused by every later eval. A run is judged by the tests
-- when some test fails at the parent and passes at the commit
-- (fail_to_pass); it then succeeds when every test it fails also fails at
-- the commit (fails_at_commit). Otherwise by reproduction of the commit,
-- or undecidable when the tests do not end in time. Replaces
-- eval_commit_tests (a cache of the commit's verdict alone): delete a
-- commit's row to judge it again.
CREATE TABLE eval_commit_judgements (
    repo_path           VARCHAR NOT NULL,
    commit              VARCHAR NOT NULL,
    test_command        VARCHAR NOT NULL,
    judged_by           VARCHAR NOT NULL,  -- tests, reproduction, undecidable
    reason              VARCHAR NOT NULL,  -- fail_to_pass, no_fail_to_pass, commit_fails, timeout_at_commit, timeout_at_parent
    fail_to_pass        VARCHAR[] NOT NULL, -- fail at the parent, pass at the commit
    pass_to_pass        VARCHAR[] NOT NULL, -- pass at both (where the runner names passing tests)
    fails_at_commit     VARCHAR[] NOT NULL, -- fail at the commit itself: a run is not asked to fix them
    commit_ms           BIGINT NOT NULL,   -- the test command's time at the commit
    parent_ms           BIGINT NOT NULL,   -- and at the parent (0: not run)
    timeout_ms          BIGINT NOT NULL,   -- the eval's test timeout for this commit's runs
    commit_output_tail  VARCHAR,
    parent_output_tail  VARCHAR,
    ran_at              TIMESTAMPTZ NOT NULL
);

DROP TABLE eval_commit_tests;

-- How each eval task's end-to-end success was judged (NULL before this
-- column existed).
ALTER TABLE eval_tasks ADD COLUMN judged_by VARCHAR;
