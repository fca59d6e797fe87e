-- cra ask --eval: questions generated from an indexed repository, each with
-- its known answer, asked through cra ask and scored like cra eval's tasks
-- (an eval_runs row, an eval_tasks row per question whose task_id is the
-- question id, its eval_results under stages ask_classify, ask_retrieval and
-- ask_answer). A question's row is written in the same transaction as its
-- eval_tasks row: a resumed eval never asks it again.
CREATE TABLE ask_questions (
    eval_run_id       BIGINT NOT NULL,     -- eval_runs.id
    question_id       VARCHAR NOT NULL,    -- ask/<kind>/<hash>, = eval_tasks.task_id
    kind              VARCHAR NOT NULL,    -- diagnostic, exploratory, conceptual, bugreport
    mode              VARCHAR NOT NULL,    -- the mode the question was written for
    repo_path         VARCHAR NOT NULL,
    question          VARCHAR NOT NULL,
    expected_files    VARCHAR[] NOT NULL,  -- repo-relative paths
    expected_symbols  VARCHAR[] NOT NULL,  -- qualified names ([] when the answer is files only)
    expected_lines    VARCHAR[] NOT NULL,  -- path:start-end of each expected symbol, in its order
    rev               VARCHAR,             -- the commit the question is asked at (a bug fix's parent); NULL: the indexed revision
    fix_commit        VARCHAR              -- a bug-report question's fix, never seen by the knowledge base it is asked against
);
