package kb

import (
	"context"
	"fmt"
	"strings"
)

// What a distill outcome o is split by, beyond its repository and commit:
// the run of the student's call it answers (s, for an item of a failed
// run) and whether cra eval made that run. Its columns are the run (empty
// without a student call) and the eval flag.
const (
	distilledUnitColumns = `coalesce(split_part(s.task_id, ':', 1), ''), ev.task_id IS NOT NULL`
	distilledUnitJoin    = ` LEFT JOIN retrieval_llm_calls s ON s.id = o.student_call_id
		LEFT JOIN (SELECT DISTINCT r.task_id FROM task_runs r JOIN eval_tasks e ON e.task_run_id = r.id) ev ON ev.task_id = s.task_id`
)

// DistilledAnswer is a verified teacher answer of a distillation, with
// what curate-data splits it by and the student's answer it beat.
type DistilledAnswer struct {
	Name, ItemID, Stage, TaskID, Repo, Commit string
	Messages                                  string // JSON: the system, user and assistant messages
	StudentCall                               int64  // 0: the item is not a student's failed call
	Student                                   string // the student's answer
	Checked, Reason, TeacherCall              string
	Run                                       string // the run of the student's call, "" without one
	EvalRun                                   bool   // cra eval made that run
}

// EachDistilledAnswer hands fn the verified answers of every distillation
// of repos (all when empty), by distillation and item.
func EachDistilledAnswer(ctx context.Context, q Querier, repos []string, fn func(DistilledAnswer) error) error {
	where, args := "", make([]any, len(repos))
	if len(repos) > 0 {
		for i, r := range repos {
			args[i] = r
		}
		where = ` AND o.repo_path IN (` + strings.TrimSuffix(strings.Repeat("?,", len(repos)), ",") + `)`
	}
	rows, err := q.QueryContext(ctx, `SELECT o.name, o.item_id, o.stage, coalesce(o.task_id, ''), o.repo_path, coalesce(o.commit, ''),
			to_json(o.messages)::VARCHAR, coalesce(o.student_call_id, 0), coalesce(s.response, ''), o.checked, o.reason,
			o.call_task_id, `+distilledUnitColumns+`
		FROM distill_outcomes o`+distilledUnitJoin+`
		WHERE o.verified AND o.messages IS NOT NULL`+where+` ORDER BY o.name, o.item_id`, args...)
	if err != nil {
		return fmt.Errorf("read the distilled answers: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var a DistilledAnswer
		if err := rows.Scan(&a.Name, &a.ItemID, &a.Stage, &a.TaskID, &a.Repo, &a.Commit, &a.Messages, &a.StudentCall, &a.Student,
			&a.Checked, &a.Reason, &a.TeacherCall, &a.Run, &a.EvalRun); err != nil {
			return err
		}
		if err := fn(a); err != nil {
			return err
		}
	}
	return rows.Err()
}

// DistilledSplit is where an answer of a distillation is, and what the
// split rule places it by.
type DistilledSplit struct {
	ItemID, RequestKey, Repo, Commit, Split string
	Run                                     string // the run of the student's call, "" without one
	EvalRun                                 bool   // cra eval made that run
}

// DistilledSplits are the splits of every answer of distillation name.
func DistilledSplits(ctx context.Context, q Querier, name string) ([]DistilledSplit, error) {
	out, err := queryList(ctx, q, func(d *DistilledSplit) []any {
		return []any{&d.ItemID, &d.RequestKey, &d.Repo, &d.Commit, &d.Split, &d.Run, &d.EvalRun}
	}, `SELECT o.item_id, o.request_key, o.repo_path, coalesce(o.commit, ''), o.split, `+
		distilledUnitColumns+` FROM distill_outcomes o`+distilledUnitJoin+` WHERE o.name = ?`, name)
	if err != nil {
		return nil, fmt.Errorf("read the splits of %s: %w", name, err)
	}
	return out, nil
}

// SetDistilledSplits moves answers of distillation name to other splits:
// item ids[i] answered by request keys[i] goes to splits[i].
func SetDistilledSplits(ctx context.Context, q Execer, name string, items, keys, splits []string) error {
	_, err := q.ExecContext(ctx, `UPDATE distill_outcomes o SET split = u.split
		FROM (SELECT unnest(?::VARCHAR[]) AS item, unnest(?::VARCHAR[]) AS key, unnest(?::VARCHAR[]) AS split) u
		WHERE o.name = ? AND o.item_id = u.item AND o.request_key = u.key`, items, keys, splits, name)
	if err != nil {
		return fmt.Errorf("split the answers of %s by the rule: %w", name, err)
	}
	return nil
}

// DistilledExamples counts the answers of distillation name that are
// examples, and the examples of the latest version of the dataset of that
// name (-1 when it has none).
func DistilledExamples(ctx context.Context, q Querier, name string) (have, latest int, err error) {
	err = q.QueryRowContext(ctx, `SELECT
			(SELECT count(*) FROM distill_outcomes WHERE name = ? AND example_id IS NOT NULL),
			coalesce((SELECT examples FROM dataset_versions WHERE name = ? ORDER BY version DESC LIMIT 1), -1)`,
		name, name).Scan(&have, &latest)
	return have, latest, err
}

// DistilledCount is how many answers of a distillation share a stage, a
// split, whether they are examples and whether they were verified.
type DistilledCount struct {
	Stage, Split      string
	Example, Verified bool
	N                 int
}

// DistilledCounts counts the answers of distillation name by stage,
// split, example and verified.
func DistilledCounts(ctx context.Context, q Querier, name string) ([]DistilledCount, error) {
	return queryList(ctx, q, func(c *DistilledCount) []any { return []any{&c.Stage, &c.Split, &c.Example, &c.Verified, &c.N} },
		`SELECT stage, split, example_id IS NOT NULL, verified, count(*)
		FROM distill_outcomes WHERE name = ? GROUP BY ALL`, name)
}
