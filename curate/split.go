package curate

import (
	"context"
	"database/sql"

	"github.com/cra-dev/cra/kb"
)

// SplitOf is where an example (or a distill item) goes by rule: to
// validation when a run of cra eval made it (its task is held out); by
// the commit it was made from when it has one (a synthetic task, or the
// task an eval replayed), so it follows its commit's group; else by the
// run it came from, so a run's examples share a split.
func SplitOf(rule kb.SplitRule, repo, commit, run string, evalRun bool) string {
	switch {
	case evalRun:
		return kb.SplitValidation
	case commit != "":
		return rule.Split(repo, commit)
	}
	return rule.Split(repo, run)
}

// ResplitDistilled sets the split of every answer of distillation name in
// the raw store conn to rule's (SplitOf, by the columns curate-data reads
// them with), so that a distilled dataset version holds nothing the rule
// holds out in train, whatever the configuration of the run that verified
// it.
func ResplitDistilled(ctx context.Context, conn *sql.Conn, name string, rule kb.SplitRule) error {
	answers, err := kb.DistilledSplits(ctx, conn, name)
	if err != nil {
		return err
	}
	var items, keys, splits []string
	for _, a := range answers {
		if s := SplitOf(rule, a.Repo, a.Commit, a.Run, a.EvalRun); s != a.Split {
			items, keys, splits = append(items, a.ItemID), append(keys, a.RequestKey), append(splits, s)
		}
	}
	if len(items) == 0 {
		return nil
	}
	return kb.SetDistilledSplits(ctx, conn, name, items, keys, splits)
}
