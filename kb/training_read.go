package kb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// readWindow is how many rowids one query of EachTrainingExample spans:
// the driver materialises a query's whole result, so a dataset is read in
// windows to keep memory flat however large it is.
const readWindow = 200_000

// EachTrainingExample streams the examples of version v of a dataset kind
// by kind, stage by stage and split by split (so a writer sees each as one
// run of rows),
// in the order they were stored: deterministic for a given store, and no
// sort of the whole dataset.
func EachTrainingExample(ctx context.Context, q Querier, dataset string, v int, fn func(TrainingExample) error) error {
	type group struct {
		kind, stage, split string
		lo, hi             int64
	}
	rows, err := q.QueryContext(ctx, `SELECT k, stage, split, lo, hi FROM (SELECT coalesce(kind, 'sft') AS k, stage, split, min(rowid) AS lo,
		max(rowid) AS hi FROM training_examples WHERE dataset = ? AND version = ? GROUP BY ALL)
		ORDER BY array_position(?::VARCHAR[], k), stage, split`, dataset, v, ExampleKinds)
	if err != nil {
		return err
	}
	var groups []group
	for rows.Next() {
		var g group
		if err := rows.Scan(&g.kind, &g.stage, &g.split, &g.lo, &g.hi); err != nil {
			rows.Close()
			return err
		}
		groups = append(groups, g)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return err
	}
	for _, g := range groups {
		for lo := g.lo; lo <= g.hi; lo += readWindow {
			if err := eachInWindow(ctx, q, dataset, v, g.kind, g.stage, g.split, lo, lo+readWindow-1, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

func eachInWindow(ctx context.Context, q Querier, dataset string, v int, kind, stage, split string, lo, hi int64, fn func(TrainingExample) error) error {
	rows, err := q.QueryContext(ctx, `SELECT id, dataset, version, stage, source, split, label, repo_path, coalesce(commit, ''),
		target_id, to_json(messages)::VARCHAR, prompt_tokens, completion_tokens, created_at,
		coalesce(kind, 'sft'), coalesce(to_json(chosen)::VARCHAR, 'null'), coalesce(to_json(rejected)::VARCHAR, 'null'),
		coalesce(signal, ''), coalesce(evidence::VARCHAR, ''), coalesce(task_id, '')
		FROM training_examples WHERE dataset = ? AND version = ? AND coalesce(kind, 'sft') = ? AND stage = ? AND split = ?
		AND rowid BETWEEN ? AND ? ORDER BY rowid`, dataset, v, kind, stage, split, lo, hi)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var e TrainingExample
		var msgs, chosen, rejected string
		if err := rows.Scan(&e.ID, &e.Dataset, &e.Version, &e.Stage, &e.Source, &e.Split, &e.Label, &e.RepoPath, &e.Commit,
			&e.TargetID, &msgs, &e.PromptTokens, &e.CompletionTokens, &e.CreatedAt,
			&e.Kind, &chosen, &rejected, &e.Signal, &e.Evidence, &e.TaskID); err != nil {
			return err
		}
		for _, m := range []struct {
			text string
			to   *[]Message
		}{{msgs, &e.Messages}, {chosen, &e.Chosen}, {rejected, &e.Rejected}} {
			if err := json.Unmarshal([]byte(m.text), m.to); err != nil {
				return fmt.Errorf("example %s: messages: %w", e.ID, err)
			}
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return rows.Err()
}

// TrainingExampleKinds counts the examples of version v of a dataset by
// kind (KindSFT, ...); kinds it does not hold are absent.
func TrainingExampleKinds(ctx context.Context, q Querier, dataset string, v int) (map[string]int, error) {
	rows, err := q.QueryContext(ctx, `SELECT coalesce(kind, 'sft'), count(*) FROM training_examples
		WHERE dataset = ? AND version = ? GROUP BY ALL`, dataset, v)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	kinds := map[string]int{}
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			return nil, err
		}
		kinds[k] = n
	}
	return kinds, rows.Err()
}
