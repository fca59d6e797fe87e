package schema

// TrainingPlanSchemaVersion is the version of the training plan document
// `cra train-plan` writes (plan.json, training_plans.raw_plan); a change of
// shape that breaks a reader is a new version.
const TrainingPlanSchemaVersion = 1

// Data sources a training plan may select examples from.
const (
	SourceSynthetic = "synthetic" // bootstrap's ground truth from history
	SourceLogged    = "logged"    // the agent's own logged model calls
	SourceDistilled = "distilled" // teacher answers verified against ground truth
)

// TrainingPlan is the part of a training plan document that curate-data
// reads; the whole document (evidence, hyperparameters, targets) is
// analysis's Plan, which embeds this. Plans written by hand or by earlier
// versions may hold only some of these fields.
type TrainingPlan struct {
	SchemaVersion int    `json:"schema_version,omitempty"`
	PlanID        int64  `json:"plan_id,omitempty"` // training_plans.id of the plan's row
	TaskID        string `json:"task_id,omitempty"` // the train-plan run (task_runs.task_id)
	TargetStage   string `json:"target_stage,omitempty"`
	BaseModel     string `json:"base_model,omitempty"` // coding or reasoning
	// DataCriteria is nil in plans that say nothing about selection.
	DataCriteria *DataCriteria `json:"data_criteria,omitempty"`
}

// DataCriteria say which examples a dataset for the plan is built from.
type DataCriteria struct {
	Stages  []string `json:"stages"`
	Sources []string `json:"sources"` // synthetic, logged, distilled
	// Repos limits the selection to these repositories (empty: all).
	Repos []string `json:"repos"`
	// HoldoutRepos are repositories whose examples go to validation
	// whole, never to train: [curate] holdout_repos when the plan was
	// made, plus any repository an eval held out under another
	// configuration (HoldoutNote says which). curate-data holds out these
	// and its own (--holdout-repos, else [curate] holdout_repos).
	HoldoutRepos []string `json:"holdout_repos"`
	// ValidationFraction is the validation fraction the split needs at
	// least: [curate] validation_fraction when the plan was made, raised
	// when an eval drew its tasks from a larger one. curate-data uses the
	// larger of it and its own; 0 (older plans): its own.
	ValidationFraction float64 `json:"validation_fraction"`
	// HoldoutNote says why the plan holds out more than the configuration
	// did; empty when it holds out the same.
	HoldoutNote string `json:"holdout_note,omitempty"`
	// LoggedOutcome says which logged calls count as positive examples:
	// "success" keeps only calls of runs that ended in success.
	LoggedOutcome string `json:"logged_outcome"`
	// MinQuality is the lowest stage score an example may have against
	// ground truth (1: exactly right; synthetic ground truth is verified).
	MinQuality float64 `json:"min_quality"`
	// PositiveFraction is the share of positive examples to aim for when
	// negatives (wrong outputs, labelled) are available.
	PositiveFraction float64 `json:"positive_fraction"`
	// PreferencePairs asks for DPO pairs: the model's wrong output
	// (rejected) against ground truth (chosen).
	PreferencePairs bool `json:"preference_pairs"`
	// ExcludeEvalTasks keeps tasks an evaluation scored out of training.
	ExcludeEvalTasks bool `json:"exclude_eval_tasks"`
	// Kinds are the kinds of example to build (sft, preference, kto);
	// empty: SFT, and preference pairs when PreferencePairs is set.
	Kinds []string `json:"kinds,omitempty"`
}
