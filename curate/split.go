package curate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

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

// distilledUnit is what a distill outcome o is split by, beyond its
// repository and commit: the run of the student's call it answers (s, for
// an item of a failed run) and whether cra eval made that run. Its columns
// are the run (empty without a student call) and the eval flag.
const (
	distilledUnitColumns = `coalesce(split_part(s.task_id, ':', 1), ''), ev.task_id IS NOT NULL`
	distilledUnitJoin    = ` LEFT JOIN retrieval_llm_calls s ON s.id = o.student_call_id
		LEFT JOIN (SELECT DISTINCT r.task_id FROM task_runs r JOIN eval_tasks e ON e.task_run_id = r.id) ev ON ev.task_id = s.task_id`
)

// ResplitDistilled sets the split of every answer of distillation name in
// the raw store conn to rule's (SplitOf, by the columns curate-data reads
// them with), so that a distilled dataset version holds nothing the rule
// holds out in train, whatever the configuration of the run that verified
// it.
func ResplitDistilled(ctx context.Context, conn *sql.Conn, name string, rule kb.SplitRule) error {
	rows, err := conn.QueryContext(ctx, `SELECT o.item_id, o.request_key, o.repo_path, coalesce(o.commit, ''), o.split, `+
		distilledUnitColumns+` FROM distill_outcomes o`+distilledUnitJoin+` WHERE o.name = ?`, name)
	if err != nil {
		return fmt.Errorf("read the splits of %s: %w", name, err)
	}
	var items, keys, splits []string
	for rows.Next() {
		var item, key, repo, commit, split, run string
		var evalRun bool
		if err := rows.Scan(&item, &key, &repo, &commit, &split, &run, &evalRun); err != nil {
			rows.Close()
			return err
		}
		if s := SplitOf(rule, repo, commit, run, evalRun); s != split {
			items, keys, splits = append(items, item), append(keys, key), append(splits, s)
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return err
	}
	if len(items) == 0 {
		return nil
	}
	_, err = conn.ExecContext(ctx, `UPDATE distill_outcomes o SET split = u.split
		FROM (SELECT unnest(?::VARCHAR[]) AS item, unnest(?::VARCHAR[]) AS key, unnest(?::VARCHAR[]) AS split) u
		WHERE o.name = ? AND o.item_id = u.item AND o.request_key = u.key`, items, keys, splits, name)
	if err != nil {
		return fmt.Errorf("split the answers of %s by the rule: %w", name, err)
	}
	return nil
}
