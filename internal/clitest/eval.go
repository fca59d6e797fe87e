package clitest

import (
	"strings"
	"testing"
)

// EvalRows are what an eval leaves in the raw store, without ids, times
// and durations: what a resumed eval must end with.
func (c *CLI) EvalRows(t testing.TB, home string) string {
	t.Helper()
	rows := c.SQLRows(t, home,
		"select name, oracle, split, status from raw.eval_runs order by all",
		"select task_id, status, error, task_run_id is not null from raw.eval_tasks order by all",
		"select task_id, stage, metric, value from raw.eval_results order by all",
		"select repo_path, commit, judged_by, reason, fail_to_pass, fails_at_commit, count(*) from raw.eval_commit_judgements group by all order by all",
		"select task_id, judged_by from raw.eval_tasks order by all",
		"select task_id, mode, success, final_diff from raw.task_runs order by all",
		"select t.task_id, a.attempt, a.patch_applied, v.success from raw.run_attempts a join raw.task_runs t on t.id = a.task_run_id join raw.validation_results v on v.attempt_id = a.id order by all",
		"select task_id, call_type, prompt, response, count(*) from raw.retrieval_llm_calls group by all order by all",
		"select task_id, stage, tier, rank, detail_level, included, reason, count(*) from raw.retrieval_decisions group by all order by all",
		"select task_id, count(*) from raw.session_archives group by all order by all",
		"select status, total_parts, total_steps, parts_completed, steps_completed from raw.orchestrator_runs order by all",
	)
	return strings.ReplaceAll(rows, home, "HOME")
}
