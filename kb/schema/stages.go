// Package schema holds the types cra stores and exchanges with models,
// defined once: pipeline stage names, the ground truth of each stage
// (scope, precision, plan, implement), search/replace edits, the
// orchestrator's plan passes (meta plan, part plan, adjustment) with their
// validation, and docstring fields. kb stores them, agent/prompt renders and
// parses them, bootstrap builds them, curate turns them into training data:
// a new field reaches all of them without a copy.
//
// It is a leaf: it imports nothing of cra and does no I/O.
package schema

// Pipeline stages, as the model router, run logs, synthetic_targets.stage
// and training data name them.
const (
	StageTaskAnalysis = "task_analysis"
	StageScope        = "scope"
	StagePrecision    = "precision"
	StagePlan         = "plan"
	StageMetaPlan     = "meta_plan" // cra solve's first pass: the task in parts
	StagePartPlan     = "part_plan" // a part in steps
	StageImplement    = "implement"
)

// SyntheticStages lists the stages bootstrap mines ground truth for, in
// pipeline order.
var SyntheticStages = []string{StageScope, StagePrecision, StagePlan, StageMetaPlan, StagePartPlan, StageImplement}
