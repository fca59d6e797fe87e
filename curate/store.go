package curate

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/cra-dev/cra/kb"
)

// writeBatch bounds one transaction of example rows.
const writeBatch = 2000

// datasetWriter stores a dataset: its examples go in under a pending name
// in bounded transactions, then one transaction swaps them in for the
// dataset's previous rows with its training_datasets and training_plans
// rows. A kill leaves the previous dataset whole; the next run first
// clears what a killed run left pending.
type datasetWriter struct {
	kb.Writer
	name string
}

func (w *datasetWriter) pending() string { return w.name + "\x00pending" }

// write is pass 2: render the kept examples again (same order, same trim)
// and store them. It returns how many were redacted.
func (w *datasetWriter) write(ctx context.Context, db *sql.DB, opts Options, kept map[string]*record) (int, error) {
	if _, err := w.Conn.ExecContext(ctx, `DELETE FROM training_examples WHERE dataset = ?`, w.pending()); err != nil {
		return 0, err
	}
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
		err := w.Tx(ctx, func() error { return kb.AppendTrainingExamples(w.Writer, batch) })
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
				ID: r.id, Dataset: w.pending(), Stage: stage, Source: "synthetic", Split: r.split, Label: "positive",
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

// register swaps the pending examples in and records the plan and one
// training_datasets row per stage, in one transaction.
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
	planTask := "curate:" + w.name
	var planID int64
	err = w.Tx(ctx, func() error {
		if err := kb.ReplaceDataset(ctx, w.Writer, w.name, w.pending()); err != nil {
			return err
		}
		if _, err := w.Conn.ExecContext(ctx, `DELETE FROM training_datasets WHERE name = ?`, w.name); err != nil {
			return err
		}
		if _, err := w.Conn.ExecContext(ctx, `DELETE FROM training_plans WHERE task_id = ?`, planTask); err != nil {
			return err
		}
		if err := w.Conn.QueryRowContext(ctx, `INSERT INTO training_plans
			(task_id, target_stage, base_model, source, data_criteria, raw_plan, timestamp)
			VALUES (?, ?, 'per_stage', 'synthetic', ?, ?, now()) RETURNING id`,
			planTask, strings.Join(opts.Stages, ","), string(criteria), rawPlan).Scan(&planID); err != nil {
			return err
		}
		dropped, err := json.Marshal(sum.Dropped)
		if err != nil {
			return err
		}
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
			if _, err := w.Conn.ExecContext(ctx, `INSERT INTO training_datasets
				(training_plan_id, stage_name, base_model, source, dataset_path, example_count, positive_count,
				 negative_count, format, timestamp, name, split_counts, dropped, criteria)
				VALUES (?, ?, ?, 'synthetic', ?, ?, ?, 0, 'table', now(), ?, ?, ?, ?)`,
				planID, stage, baseModel(stage), "raw.training_examples", n, n, w.name, string(js), string(dropped), string(criteria)); err != nil {
				return fmt.Errorf("record dataset %s/%s: %w", w.name, stage, err)
			}
		}
		return nil
	})
	return planID, err
}

// baseModel is the role whose model a stage's adapter is trained on.
func baseModel(stage string) string {
	if stage == kb.StageImplement {
		return "coding"
	}
	return "reasoning"
}
