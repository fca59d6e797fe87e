package kb

import (
	"context"
	"encoding/json"
	"fmt"
)

// EachTrainingExample streams a dataset's examples ordered by stage, split
// and id (so a writer sees each stage and split as one run of rows).
func EachTrainingExample(ctx context.Context, q Querier, dataset string, fn func(TrainingExample) error) error {
	rows, err := q.QueryContext(ctx, `SELECT id, dataset, stage, source, split, label, repo_path, coalesce(commit, ''),
		target_id, to_json(messages)::VARCHAR, prompt_tokens, completion_tokens, created_at
		FROM training_examples WHERE dataset = ? ORDER BY stage, split, id`, dataset)
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
