package shards

// table is one exported table: its name, the key rows are deduplicated
// on when shards meet (the same deterministic ids bootstrap anti-joins
// on), and the column holding a bootstrap run id, remapped on import.
type table struct {
	name   string
	key    []string
	runCol string
	// newest: the row with the latest updated_at wins instead of the first.
	newest bool
}

// runsTable is bootstrap_runs, whose ids each home numbers from 1: its
// rows are not deduplicated by key but mapped to runs of the importing
// home (raw.shard_runs).
const runsTable = "bootstrap_runs"

// tables are the tables a shard exports besides bootstrap_runs, in the
// order import loads them: a task only once its targets are in, and a
// repository's watermark last, so a killed import never leaves a task
// without its ground truth nor a watermark past commits not loaded.
// bootstrap_funnel is a view over bootstrap_commits. The curated store is
// not exported: cra eval indexes a scratch knowledge base at each task's
// parent itself, and `cra index` on the importing machine rebuilds the
// rest.
var tables = []table{
	{name: "synthetic_targets", key: []string{"id"}},
	{name: "synthetic_tasks", key: []string{"id"}, runCol: "run_id"},
	// bootstrap writes a merge's decision once per outcome: a branch too
	// long is examined again when max_parts grows, and decided then.
	{name: "bootstrap_merges", key: []string{"repo_path", "commit", "outcome"}, runCol: "run_id"},
	{name: "bootstrap_commits", key: []string{"repo_path", "commit"}, runCol: "run_id"},
	{name: "bootstrap_repos", key: []string{"repo_path"}, runCol: "last_run_id", newest: true},
}

// TableNames are the tables an export writes, bootstrap_runs first.
func TableNames() []string {
	names := []string{runsTable}
	for _, t := range tables {
		names = append(names, t.name)
	}
	return names
}
