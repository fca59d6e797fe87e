package kb

import (
	"context"
	"fmt"
	"time"
)

// TrainingPlanRow is one row of raw.training_plans as `cra train-plan`
// writes it; the JSON columns hold the plan's own sections and RawPlan the
// whole document.
type TrainingPlanRow struct {
	ID                 int64 // from NextTrainingPlanID, so the document can name its row
	TaskID             string
	TargetStage        string
	BaseModel          string // coding or reasoning
	Source             string // synthetic, logged, distilled or mix
	DataCriteria       string // JSON
	Hyperparameters    string // JSON
	ImprovementTargets string // JSON
	RawPlan            string // JSON: the whole plan
	At                 time.Time
}

// NextTrainingPlanID reserves the id of the next training plan row.
func NextTrainingPlanID(ctx context.Context, q Querier) (int64, error) {
	var id int64
	if err := q.QueryRowContext(ctx, `SELECT nextval('training_plans_id_seq')`).Scan(&id); err != nil {
		return 0, fmt.Errorf("reserve a training plan id: %w", err)
	}
	return id, nil
}

// InsertTrainingPlan writes row with its reserved id.
func InsertTrainingPlan(ctx context.Context, q Execer, row TrainingPlanRow) error {
	_, err := q.ExecContext(ctx, `INSERT INTO training_plans (id, task_id, target_stage, base_model, source, data_criteria,
		hyperparameters, improvement_targets, raw_plan, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		row.ID, row.TaskID, row.TargetStage, row.BaseModel, row.Source, row.DataCriteria,
		row.Hyperparameters, row.ImprovementTargets, row.RawPlan, row.At)
	if err != nil {
		return fmt.Errorf("record training plan %d: %w", row.ID, err)
	}
	return nil
}

// TrainingPlanRecorded reports whether training plan id is in the store
// as the plan of run taskID, so a dataset built for it can name it.
func TrainingPlanRecorded(ctx context.Context, q Querier, id int64, taskID string) (bool, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM training_plans WHERE id = ? AND task_id = ?`, id, taskID).Scan(&n); err != nil {
		return false, fmt.Errorf("look up training plan %d: %w", id, err)
	}
	return n > 0, nil
}

// InsertDatasetPlan records the plan of a dataset version built without
// one from train-plan (its criteria stand for it) and returns its id.
func InsertDatasetPlan(ctx context.Context, q Querier, taskID, stages, source, criteria, rawPlan string) (int64, error) {
	var id int64
	err := q.QueryRowContext(ctx, `INSERT INTO training_plans
			(task_id, target_stage, base_model, source, data_criteria, raw_plan, timestamp)
			VALUES (?, ?, 'per_stage', ?, ?, ?, now()) RETURNING id`,
		taskID, stages, source, criteria, rawPlan).Scan(&id)
	return id, err
}

// TrainingDatasetRow is one row of raw.training_datasets: a dataset
// version's examples of one stage and kind.
type TrainingDatasetRow struct {
	PlanID                       int64
	Stage, BaseModel, Source     string
	Path                         string // where the examples are: raw.training_examples
	Examples, Positive, Negative int
	Name                         string
	Version                      int
	SplitCounts                  string // JSON: split → count
	Kind                         string
}

// InsertTrainingDataset writes r.
func InsertTrainingDataset(ctx context.Context, q Execer, r TrainingDatasetRow) error {
	_, err := q.ExecContext(ctx, `INSERT INTO training_datasets
				(training_plan_id, stage_name, base_model, source, dataset_path, example_count, positive_count,
				 negative_count, format, timestamp, name, version, split_counts, kind)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'table', now(), ?, ?, ?, ?)`,
		r.PlanID, r.Stage, r.BaseModel, r.Source, r.Path, r.Examples, r.Positive, r.Negative, r.Name, r.Version, r.SplitCounts, r.Kind)
	return err
}
