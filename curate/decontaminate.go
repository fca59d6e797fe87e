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
	evaluated, err := kb.EvalTasks(ctx, q)
	if err != nil {
		return err
	}
	type eval struct{ name, commit string }
	groups := map[string]eval{} // repo NUL group → an eval's name and the commit it scored
	tasks := map[string]eval{}  // task id → the same
	for _, t := range evaluated {
		e := eval{t.Eval, t.Commit}
		tasks[t.Task] = e
		if _, ok := groups[t.Repo+"\x00"+rule.Group(t.Repo, t.Commit)]; !ok {
			groups[t.Repo+"\x00"+rule.Group(t.Repo, t.Commit)] = e
		}
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
