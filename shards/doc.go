// Package shards owns the nightly batch split across machines: which
// shard (K of N) an input belongs to, the export of a home's mined tables
// as Hive-partitioned Parquet under a shared folder (one manifest per
// shard commits a generation), the import of every committed shard into
// one home (run ids remapped, rows anti-joined on their deterministic
// keys), and the views `cra sql --shards` queries the union through
// without a home.
//
// It owns the SQL of raw.shard_home and raw.shard_runs, and the SQL that
// copies the bootstrap tables out and in (kb's TestSQLOwnership lists
// them); it never mines: bootstrap and ingest do not import it, cmd/cra
// filters their inputs through Select. There is no coordinator: every pod
// runs the ordinary commands on its own home, and a reader sees a shard
// whole or not at all because it reads only what a manifest names.
package shards
