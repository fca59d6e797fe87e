package curate

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/version"
	"github.com/cra-dev/cra/kb"
)

// writeBatch bounds one transaction of example rows.
const writeBatch = 2000

// datasetWriter stores one version of a dataset: its examples go in under
// the new version in bounded transactions, then one transaction registers
// the version (dataset_versions, training_datasets, training_plans), which
// makes it visible. A kill before that leaves examples no reader sees; the
// next run takes the same version number and clears them first. Earlier
// versions are never touched.
type datasetWriter struct {
	kb.Writer
	name    string
	version int
	// planID is the training_plans row the version follows when the
	// store already holds it (train-plan's); 0 records a row of its own.
	planID int64
}

// write is pass 2: render the kept examples again (same order, same trim)
// and store them. It returns how many were redacted.
func (w *datasetWriter) write(ctx context.Context, db *sql.DB, opts Options, kept map[string]*record) (int, error) {
	reader, err := db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer reader.Close()
	now := time.Now().UTC()
	redacted := 0
	var batch []kb.TrainingExample
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := w.Tx(ctx, func() error { return kb.AppendTrainingExamples(ctx, w.Writer, batch) })
		batch = batch[:0]
		return err
	}
	err = eachTask(ctx, reader, opts, func(t *task) error {
		for _, stage := range opts.Stages {
			r := kept[t.TargetIDs[stage]]
			if r == nil {
				continue
			}
			ex, _, err := renderers[stage](t, r.trim)
			if err != nil {
				return err
			}
			msgs := []kb.Message{{Role: "system", Content: ex.system}, {Role: "user", Content: ex.user}, {Role: "assistant", Content: ex.assistant}}
			if hasSecret(ex.system, ex.user, ex.assistant) {
				for i := range msgs {
					msgs[i].Content = redact(msgs[i].Content)
				}
				redacted++
			}
			batch = append(batch, kb.TrainingExample{
				ID: r.id, Dataset: w.name, Version: w.version, Stage: stage, Source: "synthetic", Split: r.split, Label: "positive",
				RepoPath: r.repo, Commit: r.commit, TargetID: r.targetID, Messages: msgs,
				PromptTokens: r.promptTokens, CompletionTokens: r.completionTokens, CreatedAt: now,
			})
			if len(batch) >= writeBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return redacted, err
	}
	return redacted, flush()
}

// register records the version (its plan, one training_datasets row per
// stage, its dataset_versions row) in one transaction: from then on it is
// visible.
func (w *datasetWriter) register(ctx context.Context, opts Options, sum *Summary) (int64, error) {
	criteria, err := json.Marshal(map[string]any{
		"source": "synthetic", "stages": opts.Stages, "repos": opts.Repos, "holdout_repos": opts.HoldoutRepos,
		"near_dup_threshold": opts.Curate.NearDupThreshold, "minhash_bands": opts.Curate.MinHashBands,
		"minhash_rows": opts.Curate.MinHashRows, "secrets": opts.Curate.Secrets,
		"validation_fraction": opts.Curate.ValidationFraction, "per_repo_cap": opts.Curate.PerRepoCap,
		"context_window": opts.Budget.ContextWindow, "safety_margin": opts.Budget.SafetyMargin,
	})
	if err != nil {
		return 0, err
	}
	rawPlan := string(opts.TrainingPlan)
	if rawPlan == "" {
		rawPlan = string(criteria)
	}
	ref := kb.DatasetRef{Name: w.name, Version: w.version}
	planID := w.planID
	err = w.Tx(ctx, func() error {
		// A plan train-plan recorded stands as it is: the dataset names it.
		if planID == 0 {
			if err := w.Conn.QueryRowContext(ctx, `INSERT INTO training_plans
				(task_id, target_stage, base_model, source, data_criteria, raw_plan, timestamp)
				VALUES (?, ?, 'per_stage', 'synthetic', ?, ?, now()) RETURNING id`,
				"curate:"+ref.String(), strings.Join(opts.Stages, ","), string(criteria), rawPlan).Scan(&planID); err != nil {
				return err
			}
		}
		total := 0
		for _, stage := range opts.Stages {
			splits := sum.Examples[stage]
			if splits == nil {
				splits = map[string]int{}
			}
			js, err := json.Marshal(splits)
			if err != nil {
				return err
			}
			n := splits[kb.SplitTrain] + splits[kb.SplitValidation]
			total += n
			if _, err := w.Conn.ExecContext(ctx, `INSERT INTO training_datasets
				(training_plan_id, stage_name, base_model, source, dataset_path, example_count, positive_count,
				 negative_count, format, timestamp, name, version, split_counts)
				VALUES (?, ?, ?, 'synthetic', ?, ?, ?, 0, 'table', now(), ?, ?, ?)`,
				planID, stage, string(llm.StageRole(stage)), "raw.training_examples", n, n, w.name, w.version, string(js)); err != nil {
				return fmt.Errorf("record dataset %s/%s: %w", ref, stage, err)
			}
		}
		return kb.RegisterDatasetVersion(ctx, w.Writer, kb.DatasetVersion{
			Name: w.name, Version: w.version, TrainingPlanID: planID, Examples: total, Dropped: sum.Dropped,
			Criteria: criteria, CraVersion: version.String(), Created: time.Now().UTC(),
		})
	})
	return planID, err
}
