package curate

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/progress"
	"github.com/cra-dev/cra/internal/secrets"
	"github.com/cra-dev/cra/internal/version"
	"github.com/cra-dev/cra/kb"
)

// writeBatch and writeBytes bound one transaction of example rows: at most
// writeBatch rows and about writeBytes of their text, so that rows holding
// 400 KB files do not pile up in one transaction.
const (
	writeBatch = 2000
	writeBytes = 16 << 20
)

// datasetWriter stores one version of a dataset: its examples are staged
// under the new version in bounded transactions, then one transaction
// registers the version (training_plans, training_datasets,
// dataset_versions) and moves its examples into training_examples, which
// makes it visible. A kill before that leaves staged examples that no
// reader of training_examples sees; the next run takes the same version
// number and clears them first. Earlier versions are never touched.
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
func (w *datasetWriter) write(ctx context.Context, db *sql.DB, opts Options, kept map[[32]byte]*record) (int, error) {
	reader, err := db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer reader.Close()
	now := time.Now().UTC()
	redacted := 0
	batch := &exampleBatch{w: w, progress: opts.Progress}
	err = eachTask(ctx, reader, opts, func(t *Task) error {
		for _, stage := range opts.Stages {
			r := kept[exampleKey(opts.Name, t.TargetIDs[stage])]
			if r == nil {
				continue
			}
			ex, _, err := renderers[stage](t, r.trim)
			if err != nil {
				return err
			}
			msgs := []kb.Message{{Role: "system", Content: ex.system}, {Role: "user", Content: ex.user}, {Role: "assistant", Content: ex.assistant}}
			// Pass 1 left out what drop mode drops; what is kept is redacted.
			if found, _ := secrets.Apply(secrets.ModeRedact, &msgs[0].Content, &msgs[1].Content, &msgs[2].Content); found {
				redacted++
			}
			if err := batch.add(ctx, kb.TrainingExample{
				ID: hex.EncodeToString(r.id[:]), Dataset: w.name, Version: w.version, Stage: stage, Source: "synthetic", Split: r.split, Label: "positive",
				RepoPath: r.repo, Commit: r.commit, TargetID: t.TargetIDs[stage], Messages: msgs,
				PromptTokens: r.promptTokens, CompletionTokens: r.completionTokens, CreatedAt: now,
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return redacted, err
	}
	return redacted, batch.flush(ctx)
}

// exampleBatch gathers examples and stages them writeBatch rows or about
// writeBytes at a time, one transaction each.
type exampleBatch struct {
	w        *datasetWriter
	progress progress.Reporter
	rows     []kb.TrainingExample
	bytes    int
}

func (b *exampleBatch) add(ctx context.Context, e kb.TrainingExample) error {
	b.rows, b.bytes = append(b.rows, e), b.bytes+e.Size()
	if len(b.rows) >= writeBatch || b.bytes >= writeBytes {
		return b.flush(ctx)
	}
	return nil
}

func (b *exampleBatch) flush(ctx context.Context) error {
	if len(b.rows) == 0 {
		return nil
	}
	err := b.w.Tx(ctx, func() error { return kb.StageTrainingExamples(ctx, b.w.Writer, b.rows) })
	b.progress.Add(int64(len(b.rows)))
	clear(b.rows) // let the written text go
	b.rows, b.bytes = b.rows[:0], 0
	return err
}

// register records the version (its plan, one training_datasets row per
// stage, its dataset_versions row) and moves its staged examples into
// training_examples, in one transaction: from then on it is visible.
func (w *datasetWriter) register(ctx context.Context, opts Options, sum *Summary) (int64, error) {
	criteria, err := json.Marshal(map[string]any{
		"source": strings.Join(opts.Sources, ","), "sources": opts.Sources, "kinds": opts.Kinds,
		"positive_fraction": opts.PositiveFraction, "logged_outcome": opts.LoggedOutcome, "stages": opts.Stages, "repos": opts.Repos, "holdout_repos": opts.HoldoutRepos,
		"near_dup_threshold": opts.Curate.NearDupThreshold, "minhash_bands": opts.Curate.MinHashBands,
		"minhash_rows": opts.Curate.MinHashRows, "secrets": opts.Curate.Secrets,
		"validation_fraction": opts.Curate.ValidationFraction, "per_repo_cap": opts.Curate.PerRepoCap,
		"context_window": opts.Budget.ContextWindow, "safety_margin": opts.Budget.SafetyMargin,
	})
	if err != nil {
		return 0, err
	}
	planID := w.planID
	err = w.Tx(ctx, func() (err error) {
		planID, err = RegisterVersion(ctx, w.Writer, BuiltVersion{Name: w.name, Version: w.version, Source: strings.Join(opts.Sources, ","),
			Stages: opts.Stages, Criteria: criteria, Plan: opts.TrainingPlan, PlanID: planID, Examples: sum.Examples, Kinds: sum.Kinds,
			Labels: sum.kto(), Dropped: sum.Dropped})
		return err
	})
	return planID, err
}

// BuiltVersion is one built version of a dataset, as RegisterVersion
// records it: curate-data's, or a distillation's (curate/distill).
type BuiltVersion struct {
	Name     string
	Version  int
	Source   string // SourceSynthetic, SourceDistilled, or curate-data's sources joined by commas
	Stages   []string
	Criteria []byte                               // the selection, JSON
	Plan     []byte                               // the training plan followed; nil: Criteria stands for it
	PlanID   int64                                // the training_plans row train-plan recorded for it; 0: one is made
	Examples map[string]map[string]int            // stage → split → count (SFT when Kinds is nil)
	Kinds    map[string]map[string]map[string]int // kind → stage → split → count; nil: Examples are SFT
	Labels   map[string][2]int                    // stage → KTO positives and negatives
	Dropped  map[string]int                       // examples left out, by reason
}

// RegisterVersion records v — its training_plans row, a training_datasets
// row per stage, its dataset_versions row — and moves its staged examples
// into training_examples (kb.RegisterDatasetVersion), in the writer's
// current transaction, and returns the plan's id. Every writer of
// training_examples comes through here.
func RegisterVersion(ctx context.Context, w kb.Writer, v BuiltVersion) (int64, error) {
	rawPlan := string(v.Plan)
	if rawPlan == "" {
		rawPlan = string(v.Criteria)
	}
	ref := kb.DatasetRef{Name: v.Name, Version: v.Version}
	planID := v.PlanID
	// A plan train-plan recorded stands as it is: the dataset names it.
	if planID == 0 {
		var err error
		if planID, err = kb.InsertDatasetPlan(ctx, w.Conn, "curate:"+ref.String(), strings.Join(v.Stages, ","), v.Source,
			string(v.Criteria), rawPlan); err != nil {
			return 0, err
		}
	}
	kinds := v.Kinds
	if kinds == nil {
		kinds = map[string]map[string]map[string]int{kb.KindSFT: v.Examples}
	}
	total := 0
	for _, kind := range kb.ExampleKinds {
		for _, stage := range v.Stages {
			if kinds[kind] == nil {
				continue
			}
			splits := kinds[kind][stage]
			if splits == nil && kind != kb.KindSFT {
				continue // a stage without rows of this kind; SFT keeps a row per stage asked for
			}
			if splits == nil {
				splits = map[string]int{}
			}
			js, err := json.Marshal(splits)
			if err != nil {
				return 0, err
			}
			n := splits[kb.SplitTrain] + splits[kb.SplitValidation]
			total += n
			pos, neg := 0, 0
			switch kind {
			case kb.KindSFT:
				pos = n
			case kb.KindKTO:
				pos, neg = v.Labels[stage][0], v.Labels[stage][1]
			}
			if err := kb.InsertTrainingDataset(ctx, w.Conn, kb.TrainingDatasetRow{PlanID: planID, Stage: stage,
				BaseModel: string(llm.StageRole(stage)), Source: v.Source, Path: "raw.training_examples", Examples: n, Positive: pos,
				Negative: neg, Name: v.Name, Version: v.Version, SplitCounts: string(js), Kind: kind}); err != nil {
				return 0, fmt.Errorf("record dataset %s/%s: %w", ref, stage, err)
			}
		}
	}
	return planID, kb.RegisterDatasetVersion(ctx, w, kb.DatasetVersion{
		Name: v.Name, Version: v.Version, TrainingPlanID: planID, Examples: total, Dropped: v.Dropped,
		Criteria: v.Criteria, CraVersion: version.String(), Created: time.Now().UTC(),
	})
}
