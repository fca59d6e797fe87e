package bootstrap

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"time"

	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// backfillDecomposed adds the meta_plan and part_plan targets of repo's
// tasks mined before bootstrap stored them: both derive from the stored
// plan (schema.Decompose), so no commit is replayed again. A task that
// has them is left alone; the load anti-joins on their ids like every
// other target. Every run asks, so it must be cheap when there is nothing
// to add (the common case): the tasks lacking a meta_plan are found on the
// id columns alone, and plans (JSON, most of the store's bytes) are read
// only for them.
func (s *rawStore) backfillDecomposed(ctx context.Context, repo string) (int, error) {
	lacking, err := kb.Column[string](ctx, s.Conn, `SELECT k.id FROM synthetic_tasks k WHERE k.repo_path = $1
		AND k.id NOT IN (SELECT task_id FROM synthetic_targets WHERE repo_path = $1 AND stage = $2)`,
		repo, schema.StageMetaPlan)
	if err != nil {
		return 0, fmt.Errorf("backfill %s: %w", repo, err)
	}
	if len(lacking) == 0 {
		return 0, nil
	}
	rows, err := s.Conn.QueryContext(ctx, `SELECT k.id, k.commit, k.task, p.target::VARCHAR FROM synthetic_tasks k
		JOIN synthetic_targets p ON p.task_id = k.id AND p.stage = ?
		WHERE k.repo_path = ? AND k.id IN (SELECT unnest(?::VARCHAR[]))`,
		schema.StagePlan, repo, lacking)
	if err != nil {
		return 0, fmt.Errorf("backfill %s: %w", repo, err)
	}
	var targets [][]driver.Value
	now := time.Now().UTC()
	for rows.Next() {
		var id, commit, task, planJSON string
		if err := rows.Scan(&id, &commit, &task, &planJSON); err != nil {
			rows.Close()
			return 0, err
		}
		var plan schema.PlanArtifact
		if err := json.Unmarshal([]byte(planJSON), &plan); err != nil {
			rows.Close()
			return 0, fmt.Errorf("backfill %s: plan of %s: %w", repo, commit, err)
		}
		meta, part := schema.Decompose(task, plan)
		for stage, v := range map[string]any{schema.StageMetaPlan: meta, schema.StagePartPlan: part} {
			// Encoded by the Appender (writeBatch says why).
			targets = append(targets, []driver.Value{syntheticID(repo, commit, stage), id, repo, commit, stage, v, now})
		}
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	if err := rows.Err(); err != nil || len(targets) == 0 {
		return 0, err
	}
	var n int
	err = s.Tx(ctx, func() error {
		n, err = s.AppendNew(ctx, "synthetic_targets", targetsColumns, []string{"id"}, targets)
		return err
	})
	return n, err
}
