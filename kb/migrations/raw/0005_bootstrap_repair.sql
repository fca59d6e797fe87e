-- Repairs what earlier versions of cra bootstrap could leave behind.
--
-- Commits outside --since were recorded with the outcome before_since, which
-- made later runs treat them as mined: they are not, so they become eligible
-- again (later runs find them as parents of mined commits).
DELETE FROM bootstrap_commits WHERE outcome = 'before_since';

-- Two runs racing on one repository could write a row twice; loads now
-- anti-join on the deterministic ids. Keep the first copy of each.
DELETE FROM bootstrap_commits WHERE rowid IN (
    SELECT rowid FROM (SELECT rowid, row_number() OVER (PARTITION BY repo_path, commit ORDER BY rowid) AS n
                       FROM bootstrap_commits) WHERE n > 1);
DELETE FROM synthetic_tasks WHERE rowid IN (
    SELECT rowid FROM (SELECT rowid, row_number() OVER (PARTITION BY id ORDER BY rowid) AS n
                       FROM synthetic_tasks) WHERE n > 1);
DELETE FROM synthetic_targets WHERE rowid IN (
    SELECT rowid FROM (SELECT rowid, row_number() OVER (PARTITION BY id ORDER BY rowid) AS n
                       FROM synthetic_targets) WHERE n > 1);
