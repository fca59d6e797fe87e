package kb

import (
	"context"
	"encoding/json"
	"fmt"
)

// readWindow is how many rowids one query of EachTrainingExample spans:
// the driver materialises a query's whole result, so a dataset is read in
// windows to keep memory flat however large it is.
const readWindow = 200_000

// EachTrainingExample streams a dataset's examples stage by stage and
// split by split (so a writer sees each as one run of rows), in the order
// they were stored: deterministic for a given store, and no sort of the
// whole dataset.
func EachTrainingExample(ctx context.Context, q Querier, dataset string, fn func(TrainingExample) error) error {
	type group struct {
		stage, split string
		lo, hi       int64
	}
	rows, err := q.QueryContext(ctx, `SELECT stage, split, min(rowid), max(rowid) FROM training_examples
		WHERE dataset = ? GROUP BY ALL ORDER BY stage, split`, dataset)
	if err != nil {
		return err
	}
	var groups []group
	for rows.Next() {
		var g group
		if err := rows.Scan(&g.stage, &g.split, &g.lo, &g.hi); err != nil {
			rows.Close()
			return err
		}
		groups = append(groups, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, g := range groups {
		for lo := g.lo; lo <= g.hi; lo += readWindow {
			if err := eachInWindow(ctx, q, dataset, g.stage, g.split, lo, lo+readWindow-1, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

func eachInWindow(ctx context.Context, q Querier, dataset, stage, split string, lo, hi int64, fn func(TrainingExample) error) error {
	rows, err := q.QueryContext(ctx, `SELECT id, dataset, stage, source, split, label, repo_path, coalesce(commit, ''),
		target_id, to_json(messages)::VARCHAR, prompt_tokens, completion_tokens, created_at
		FROM training_examples WHERE dataset = ? AND stage = ? AND split = ? AND rowid BETWEEN ? AND ?
		ORDER BY rowid`, dataset, stage, split, lo, hi)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var e TrainingExample
		var msgs string
		if err := rows.Scan(&e.ID, &e.Dataset, &e.Stage, &e.Source, &e.Split, &e.Label, &e.RepoPath, &e.Commit,
			&e.TargetID, &msgs, &e.PromptTokens, &e.CompletionTokens, &e.CreatedAt); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(msgs), &e.Messages); err != nil {
			return fmt.Errorf("example %s: messages: %w", e.ID, err)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return rows.Err()
}

// DatasetInfo is one dataset as the registry lists it.
type DatasetInfo struct {
	Name     string                    `json:"name"`
	Examples map[string]map[string]int `json:"examples"` // stage → split → count
	Dropped  map[string]map[string]int `json:"dropped"`  // stage → reason → count
	Criteria json.RawMessage           `json:"criteria,omitempty"`
	Created  string                    `json:"created"`
}

// Datasets lists the datasets of the raw store, by name; with name set,
// only that one (ErrNotFound when it does not exist).
func Datasets(ctx context.Context, q Querier, name string) ([]DatasetInfo, error) {
	rows, err := q.QueryContext(ctx, `SELECT d.name, d.stage_name, coalesce(d.dropped::VARCHAR, '{}'),
		coalesce(d.criteria::VARCHAR, 'null'), strftime(d.timestamp, '%Y-%m-%dT%H:%M:%SZ'),
		count(e.id) FILTER (WHERE e.split = 'train'), count(e.id) FILTER (WHERE e.split = 'validation')
		FROM training_datasets d LEFT JOIN training_examples e ON e.dataset = d.name AND e.stage = d.stage_name
		WHERE d.name IS NOT NULL AND (? = '' OR d.name = ?)
		GROUP BY ALL ORDER BY d.name, d.stage_name`, name, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []DatasetInfo
	for rows.Next() {
		var n, stage, dropped, criteria, created string
		var train, val int
		if err := rows.Scan(&n, &stage, &dropped, &criteria, &created, &train, &val); err != nil {
			return nil, err
		}
		if len(out) == 0 || out[len(out)-1].Name != n {
			out = append(out, DatasetInfo{Name: n, Examples: map[string]map[string]int{}, Dropped: map[string]map[string]int{},
				Criteria: json.RawMessage(criteria), Created: created})
		}
		d := &out[len(out)-1]
		d.Examples[stage] = map[string]int{SplitTrain: train, SplitValidation: val}
		var dr map[string]int
		if err := json.Unmarshal([]byte(dropped), &dr); err == nil {
			d.Dropped[stage] = dr
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if name != "" && len(out) == 0 {
		return nil, fmt.Errorf("dataset %q: %w (see `cra datasets list`)", name, ErrNotFound)
	}
	return out, nil
}
