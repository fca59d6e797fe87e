package curate

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
)

// checkHeldOut refuses a dataset whose train split would hold a task cra
// eval has scored the agent on — an example made from its commit, or from
// a run on it, by any source — since a model trained on it would be
// measured on what it learnt. It looks both ways across merged branches:
// an evaluated merge task's parts, and an evaluated part's merge task and
// other parts, are as held out as the evaluated task itself (rule's
// groups). The split rule keeps the two apart by itself; what breaks it is
// a change of configuration between an eval and a curate-data ([curate]
// holdout_repos or validation_fraction, or --holdout-repos), or an eval
// made before merged branches were split as one, and that is what the
// error names.
func checkHeldOut(ctx context.Context, q kb.Querier, rule kb.SplitRule, recs []record) error {
	rows, err := q.QueryContext(ctx, `SELECT DISTINCT k.repo_path, k.commit, r.name, k.id FROM eval_tasks e
		JOIN synthetic_tasks k ON k.id = e.task_id JOIN eval_runs r ON r.id = e.eval_run_id ORDER BY ALL`)
	if err != nil {
		return fmt.Errorf("read the evaluated tasks: %w", err)
	}
	defer rows.Close()
	type eval struct{ name, commit string }
	groups := map[string]eval{} // repo NUL group → an eval's name and the commit it scored
	tasks := map[string]eval{}  // task id → the same
	for rows.Next() {
		var repo, commit, name, task string
		if err := rows.Scan(&repo, &commit, &name, &task); err != nil {
			return err
		}
		e := eval{name, commit}
		tasks[task] = e
		if _, ok := groups[repo+"\x00"+rule.Group(repo, commit)]; !ok {
			groups[repo+"\x00"+rule.Group(repo, commit)] = e
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	leaks := map[string]bool{}
	var examples int
	for _, r := range recs {
		if r.drop != "" || r.split != kb.SplitTrain {
			continue
		}
		e, ok := tasks[r.task]
		if !ok && r.commit != "" {
			e, ok = groups[r.repo+"\x00"+rule.Group(r.repo, r.commit)]
		}
		if !ok {
			continue
		}
		examples++
		leak := fmt.Sprintf("%s@%.12s (eval %s)", r.repo, r.commit, e.name)
		if e.commit != r.commit && r.commit != "" {
			leak = fmt.Sprintf("%s@%.12s (merged branch of %.12s, %.12s scored by eval %s)", r.repo, r.commit,
				rule.Group(r.repo, r.commit), e.commit, e.name)
		}
		leaks[leak] = true
	}
	if examples == 0 {
		return nil
	}
	list := make([]string, 0, len(leaks))
	for l := range leaks {
		list = append(list, l)
	}
	sort.Strings(list)
	if len(list) > 3 {
		list = append(list[:3], fmt.Sprintf("and %d more", len(leaks)-3))
	}
	return usage.Errorf("refused: %d train examples come from %d commits cra eval scored the agent on (%s), so training on them would leak into the eval; "+
		"keep the split the evals ran with ([curate] validation_fraction and holdout_repos, --holdout-repos), or narrow --repos",
		examples, len(leaks), strings.Join(list, ", "))
}
