// Package schema holds the types cra stores and exchanges with models,
// defined once: pipeline stage, pass-type and call-type names, the ground
// truth of each stage (scope, precision, plan, implement), search/replace
// edits, the orchestrator's plan passes (meta plan, part plan, adjustment)
// with their validation, and docstring fields. kb stores them,
// agent/prompt renders and parses them, bootstrap builds them, curate
// turns them into training data: a new field reaches all of them without
// a copy, and a renamed stage is renamed everywhere by the compiler.
//
// It is a leaf: it imports nothing of cra and does no I/O.
package schema

// Pipeline stages, as the model router, run logs, synthetic_targets.stage,
// eval scores and training data name them. A model call is logged with its
// stage as both call_type and stage_name unless a Call* name says otherwise.
const (
	StageTaskAnalysis = "task_analysis"
	StageScope        = "scope"
	StagePrecision    = "precision"
	StagePlan         = "plan"
	StageMetaPlan     = "meta_plan"     // cra solve's first pass: the task in parts
	StagePartPlan     = "part_plan"     // a part in steps
	StageImplement    = "implement"     // an edit, from a plan or a step
	StageAdjustment   = "adjustment"    // cra solve's revision of a part's remaining steps
	StageEnrichment   = "enrichment"    // ingest's docstring and summary calls
	StageTrainPlan    = "train_plan"    // cra train-plan's narrative call (its [models.overrides] key)
	StageEndToEnd     = "end_to_end"    // not a model call: the eval score of the whole run
	StageAskClassify  = "ask_classify"  // cra ask's question mode (diagnostic, exploratory, analytical, conceptual)
	StageAskAnswer    = "ask_answer"    // cra ask's answer pass, with its sources and missing context
	StageAskRetrieval = "ask_retrieval" // not a model call: the eval score of cra ask's retrieval before any model choice
)

// Pass types of the solve orchestrator, as orchestrator_passes.pass_type
// names them. A step's implement pass has its own name: its call is an
// implement call, but the pass is a step of a part plan.
const (
	PassMetaPlan      = StageMetaPlan
	PassPartPlan      = StagePartPlan
	PassStepImplement = "step_implement"
	PassAdjustment    = StageAdjustment
)

// Call types of the logged rows that are not one stage's model call
// (retrieval_llm_calls.call_type).
const (
	CallRefinementMerge    = "refinement_merge"     // retrieval's re-entry merging new candidates into the scope (no model)
	CallAssembly           = "assembly"             // the context package as assembled: what was kept and cut (no model)
	CallDistill            = "distill"              // a teacher's answer for cra distill
	CallTrainPlanNarrative = "train_plan_narrative" // cra train-plan's narrative, under stage train_plan
	CallAskRetrieval       = "ask_retrieval"        // cra ask's context as retrieved for a pass: sources, budget used (no model)
	CallAskGap             = "ask_gap"              // one gap of an ask's answer and how it was resolved (no model)
)

// SyntheticStages lists the stages bootstrap mines ground truth for, in
// pipeline order.
var SyntheticStages = []string{StageScope, StagePrecision, StagePlan, StageMetaPlan, StagePartPlan, StageImplement}

// LoggedStages lists the stages logged runs give examples of (the model
// calls of cra solve and cra eval that curate-data reads), in pipeline
// order.
var LoggedStages = []string{StageTaskAnalysis, StageScope, StagePrecision, StageMetaPlan, StagePartPlan, StageImplement, StageAdjustment}

// Metrics every eval score of a stage has, as eval_results.metric names
// them: agent/eval writes them, analysis and curate read them.
const (
	// MetricCorrect is 1 when a stage's output is right by the stage's
	// rule (see README); failure attribution reads it.
	MetricCorrect = "correct"
	// MetricSuccess is StageEndToEnd's: 1 when the task succeeded.
	MetricSuccess = "success"
)
