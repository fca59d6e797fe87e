package kb

import (
	"context"
	"fmt"
)

// What the adapter gate (`cra adapters eval`) reads and writes beside the
// registry's rows (adapters.go): the train split of an adapter's dataset,
// which its held-out tasks must stay out of, and where a verdict's report
// was written.

// TrainKey is one train-split example's origin: its repository and
// commit, and the synthetic task it was made from ("" when the row does
// not say).
type TrainKey struct {
	Repo, Commit, TaskID string
}

// TrainSplitKeys is each distinct origin of the train-split rows of
// dataset at version.
func TrainSplitKeys(ctx context.Context, q Querier, dataset string, version int) ([]TrainKey, error) {
	rows, err := q.QueryContext(ctx, `SELECT DISTINCT repo_path, coalesce(commit, ''), coalesce(task_id, '')
		FROM training_examples WHERE dataset = ? AND version = ? AND split = 'train' ORDER BY ALL`, dataset, version)
	if err != nil {
		return nil, fmt.Errorf("read the train split of %s@%d: %w", dataset, version, err)
	}
	defer rows.Close()
	var out []TrainKey
	for rows.Next() {
		var k TrainKey
		if err := rows.Scan(&k.Repo, &k.Commit, &k.TaskID); err != nil {
			return nil, fmt.Errorf("read the train split of %s@%d: %w", dataset, version, err)
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// SetAdapterGateReport records where gate id's reports are: the directory
// is named after the id, so it is known only once the row is.
func SetAdapterGateReport(ctx context.Context, w Writer, id int64, dir string) error {
	if _, err := w.Conn.ExecContext(ctx, `UPDATE adapter_gates SET report_dir = ? WHERE id = ?`, dir, id); err != nil {
		return fmt.Errorf("record the report of gate %d: %w", id, err)
	}
	return nil
}
