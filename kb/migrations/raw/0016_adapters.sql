-- Placeholder on branch h28/routing only: h28/registry owns
-- 0016_adapters.sql (the adapter registry), which replaces this file when
-- the branches merge; it is here so 0017 has a version to follow.
SELECT 1;
