package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/cra-dev/cra/kb"
)

// Dataset stores examples in home's raw store as version 1 of dataset
// name, as a build registers one: staged through kb.StageTrainingExamples
// and registered (a training_datasets row per stage, the move into
// training_examples, a dataset_versions row) in one transaction.
func Dataset(t testing.TB, home, name string, examples []kb.TrainingExample) {
	t.Helper()
	ctx := context.Background()
	var stages []string
	for i := range examples {
		examples[i].Dataset, examples[i].Version = name, 1
		if !slices.Contains(stages, examples[i].Stage) {
			stages = append(stages, examples[i].Stage)
		}
	}
	err := kb.WithWriter(ctx, home, kb.Raw, kb.Options{Wait: lockWait}, func(w kb.Writer) error {
		return w.Tx(ctx, func() error {
			for _, st := range stages {
				if _, err := w.Conn.ExecContext(ctx, `INSERT INTO training_datasets (training_plan_id, stage_name, base_model,
					dataset_path, example_count, positive_count, negative_count, timestamp, name, version)
					VALUES (1, ?, 'coding', 'raw.training_examples', 0, 0, 0, now(), ?, 1)`, st, name); err != nil {
					return err
				}
			}
			if err := kb.StageTrainingExamples(ctx, w, examples); err != nil {
				return err
			}
			return kb.RegisterDatasetVersion(ctx, w, kb.DatasetVersion{Name: name, Version: 1, TrainingPlanID: 1,
				Examples: len(examples), Dropped: map[string]int{}, Criteria: []byte(`{"source": "test"}`), CraVersion: "test",
				Created: time.Now()})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}
