package shards

// Checks are what a union of shards must agree on with one run, row for
// row: the task ids, the targets' content, the funnel per repository and
// outcome, the merge decisions and each repository's watermark. Each is a
// query over the raw store's names (unqualified: raw comes first on the
// search path), for an imported home, `cra sql --shards` and a single
// run alike; the tests and `make shards` compare them.
var Checks = map[string]string{
	"tasks":   "SELECT id, repo_path, commit FROM synthetic_tasks",
	"targets": "SELECT id, stage, md5(target::VARCHAR) FROM synthetic_targets",
	"funnel":  "SELECT repo_path, outcome, count(*) FROM bootstrap_commits GROUP BY ALL",
	"merges":  "SELECT repo_path, commit, outcome, parts FROM bootstrap_merges",
	"repos":   "SELECT repo_path, list_sort(watermark), last_status FROM bootstrap_repos",
}
