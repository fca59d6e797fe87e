-- cra curate-data from logged runs: SFT, preference pairs and KTO rows in
-- one table.
--
-- kind says what a row is:
--   sft         messages is the whole conversation (system, user, assistant);
--   preference  messages is the prompt (system, user); chosen and rejected
--               are the two answers to it (one assistant message each);
--   kto         messages is the prompt and its completion (assistant last);
--               label says whether the completion was right: positive or
--               negative.
-- signal names where a logged row's label came from (implement_tests,
-- complete_run, eval_correct, solve_kept, coder_retry, adjustment, eval,
-- teacher_student, distilled); evidence holds the ids and outcomes behind
-- it (run, pass, call and attempt ids, tests, eval scores); task_id is the
-- synthetic task the row was made from or scored against (NULL when none):
-- what decontamination checks.
ALTER TABLE training_examples ADD COLUMN kind VARCHAR DEFAULT 'sft';
ALTER TABLE training_examples ADD COLUMN chosen STRUCT(role VARCHAR, content VARCHAR)[];
ALTER TABLE training_examples ADD COLUMN rejected STRUCT(role VARCHAR, content VARCHAR)[];
ALTER TABLE training_examples ADD COLUMN signal VARCHAR;
ALTER TABLE training_examples ADD COLUMN evidence JSON;
ALTER TABLE training_examples ADD COLUMN task_id VARCHAR;

-- One training_datasets row per (stage, kind) of a version; positive_count
-- and negative_count are KTO's labels (an SFT row counts positive, a pair
-- neither).
ALTER TABLE training_datasets ADD COLUMN kind VARCHAR DEFAULT 'sft';
