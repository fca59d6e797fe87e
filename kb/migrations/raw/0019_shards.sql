-- cra shards: the union of homes that each mined a shard of the clones.
--
-- A home's identity: a random id it takes at its first `cra shards
-- export`, written into each shard's manifest, so an importing home can
-- tell the runs of one home from another's (every home numbers its
-- bootstrap runs from 1). One row at most.
CREATE TABLE shard_home (
    home_id     VARCHAR NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL
);

-- Each run imported from a shard: the exporting home's (home_id,
-- source_run_id) and the bootstrap_runs.id it became here. The imported
-- rows' run_id (and bootstrap_repos.last_run_id) are remapped through it,
-- so importing twice adds no run and a later export adds only new runs.
CREATE TABLE shard_runs (
    home_id        VARCHAR NOT NULL,
    source_run_id  BIGINT NOT NULL,
    run_id         BIGINT NOT NULL,   -- bootstrap_runs.id in this home
    shard          INTEGER NOT NULL,  -- the shard (K of N) it came from
    shard_count    INTEGER NOT NULL,
    imported_at    TIMESTAMPTZ NOT NULL
);
