package curate

import "github.com/cra-dev/cra/kb"

// splitOf is where an example (or a distill item) goes by rule: to
// validation when a run of cra eval made it (its task is held out); by
// the commit it was made from when it has one (a synthetic task, or the
// task an eval replayed), so it follows its commit's group; else by the
// run it came from, so a run's examples share a split.
func splitOf(rule kb.SplitRule, repo, commit, run string, evalRun bool) string {
	switch {
	case evalRun:
		return kb.SplitValidation
	case commit != "":
		return rule.Split(repo, commit)
	}
	return rule.Split(repo, run)
}

// distilledUnit is what a distill outcome o is split by, beyond its
// repository and commit: the run of the student's call it answers (s, for
// an item of a failed run) and whether cra eval made that run. Its columns
// are the run (empty without a student call) and the eval flag.
const (
	distilledUnitColumns = `coalesce(split_part(s.task_id, ':', 1), ''), ev.task_id IS NOT NULL`
	distilledUnitJoin    = ` LEFT JOIN retrieval_llm_calls s ON s.id = o.student_call_id
		LEFT JOIN (SELECT DISTINCT r.task_id FROM task_runs r JOIN eval_tasks e ON e.task_run_id = r.id) ev ON ev.task_id = s.task_id`
)
