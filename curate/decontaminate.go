package curate

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/cra-dev/cra/kb"
)

// checkHeldOut refuses a dataset whose train split would hold a task cra
// eval has scored the agent on — an example made from its commit, or from
// a run on it — since a model trained on it would be measured on what it
// learnt. The split rules keep the two apart by themselves; what breaks
// them is a change of configuration between an eval and a curate-data
// ([curate] holdout_repos or validation_fraction, or --holdout-repos), and
// that is what the error names.
func checkHeldOut(ctx context.Context, q kb.Querier, recs []record) error {
	rows, err := q.QueryContext(ctx, `SELECT DISTINCT k.repo_path, k.commit, r.name, k.id FROM eval_tasks e
		JOIN synthetic_tasks k ON k.id = e.task_id JOIN eval_runs r ON r.id = e.eval_run_id`)
	if err != nil {
		return fmt.Errorf("read the evaluated tasks: %w", err)
	}
	defer rows.Close()
	evaluated := map[string]string{} // repo NUL commit, and task id → an eval's name
	for rows.Next() {
		var repo, commit, name, task string
		if err := rows.Scan(&repo, &commit, &name, &task); err != nil {
			return err
		}
		evaluated[repo+"\x00"+commit], evaluated[task] = name, name
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
		name, ok := evaluated[r.repo+"\x00"+r.commit]
		if !ok && r.task != "" {
			name, ok = evaluated[r.task]
		}
		if ok {
			examples++
			leaks[fmt.Sprintf("%s@%.12s (eval %s)", r.repo, r.commit, name)] = true
		}
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
	return usagef("refused: %d train examples come from %d commits cra eval scored the agent on (%s), so training on them would leak into the eval; "+
		"keep the split the evals ran with ([curate] validation_fraction and holdout_repos, --holdout-repos), or narrow --repos",
		examples, len(leaks), strings.Join(list, ", "))
}
