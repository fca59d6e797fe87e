package analysis

import (
	"time"

	"github.com/cra-dev/cra/internal/stats"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// Stages are the pipeline's scored stages in pipeline order: first-error
// attribution charges a failed run to the earliest wrong one. cra eval
// scores cra solve's plan passes (meta_plan, part_plan) where cra plan's
// runs have the one plan stage.
var Stages = []string{schema.StageTaskAnalysis, schema.StageScope, schema.StagePrecision, schema.StagePlan,
	schema.StageMetaPlan, schema.StagePartPlan, schema.StageImplement}

// EndToEnd is the eval_results stage of a task's outcome; its metric
// MetricSuccess is 1 when the task succeeded.
const (
	EndToEnd      = schema.StageEndToEnd
	MetricSuccess = schema.MetricSuccess
	MetricCorrect = schema.MetricCorrect
)

// Rate is k of n with its Wilson interval.
type Rate struct {
	K     int            `json:"k"`
	N     int            `json:"n"`
	Value float64        `json:"value"`
	CI    stats.Interval `json:"ci"`
}

func newRate(k, n int) Rate {
	v := 0.0
	if n > 0 {
		v = float64(k) / float64(n)
	}
	return Rate{K: k, N: n, Value: stats.Round4(v), CI: stats.Wilson(k, n)}
}

// Association compares task failure when an indicator holds (a stage's
// output was wrong, a file was dropped) with when it does not.
type Association struct {
	FailIf    Rate           `json:"fail_if"`     // P(fail | indicator)
	FailIfNot Rate           `json:"fail_if_not"` // P(fail | not indicator)
	OddsRatio float64        `json:"odds_ratio"`
	ORCI      stats.Interval `json:"odds_ratio_ci"`
	// Corrected says 0.5 was added to every cell for a zero cell.
	Corrected bool    `json:"haldane_corrected"`
	FisherP   float64 `json:"fisher_p"`
	// HolmP is FisherP adjusted over the stages tested together (stages
	// only; 0 elsewhere).
	HolmP float64 `json:"holm_p,omitempty"`
}

func newAssociation(failIf, okIf, failNot, okNot int) *Association {
	or, ci, corr := OddsRatio(failIf, okIf, failNot, okNot)
	return &Association{FailIf: newRate(failIf, failIf+okIf), FailIfNot: newRate(failNot, failNot+okNot),
		OddsRatio: stats.Round4(or), ORCI: ci, Corrected: corr, FisherP: stats.Round4(FisherExact(failIf, okIf, failNot, okNot))}
}

// MetricMean is a stage metric's mean over repositories (each counts
// once) with its bootstrap interval; Method says what the bootstrap
// resampled (stats.RepoMean).
type MetricMean struct {
	Metric string         `json:"metric"`
	Value  float64        `json:"value"`
	CI     stats.Interval `json:"ci"`
	Method string         `json:"method"`
	Tasks  int            `json:"tasks"`
	Repos  int            `json:"repos"`
}

// StageEvidence is what the evals say of one stage.
type StageEvidence struct {
	Stage   string       `json:"stage"`
	Correct *Rate        `json:"correct,omitempty"` // share of outputs right against ground truth
	Metrics []MetricMean `json:"metrics,omitempty"`
	// Association of the stage being wrong with end-to-end failure.
	Association *Association `json:"association,omitempty"`
	// Definitional says why the association is one by definition, for a
	// stage in Definitional: shown, never tested, never significant.
	Definitional string `json:"definitional,omitempty"`
	// Significant: Holm-adjusted p < 0.05 and the odds ratio's interval
	// above 1 (being wrong goes with failing).
	Significant bool `json:"significant"`
	// Blame is the share of failed runs whose earliest wrong stage this is.
	Blame Rate `json:"blame"`
	// Lift is the stage's oracle lift, when an oracle eval replaced it alone.
	Lift *OracleLift `json:"oracle_lift,omitempty"`
	// TasksNeeded is how many eval tasks would show the association
	// observed (power 80 %, two-sided 5 % over the stages tested); nil when
	// no difference was observed.
	TasksNeeded *int `json:"tasks_needed,omitempty"`
}

// Coefficient is one term of the logistic regression.
type Coefficient struct {
	Term      string         `json:"term"` // "intercept" or "<stage> wrong"
	Estimate  float64        `json:"estimate"`
	SE        float64        `json:"se"`
	CI        stats.Interval `json:"ci"`
	OddsRatio float64        `json:"odds_ratio"`
}

// Regression is the logistic regression of end-to-end failure on the
// stages' wrong-output indicators, or why it was not fitted.
type Regression struct {
	Fitted       bool          `json:"fitted"`
	Reason       string        `json:"reason,omitempty"`
	Observations int           `json:"observations"`
	Coefficients []Coefficient `json:"coefficients,omitempty"`
}

// OracleLift is the paired difference in end-to-end success when the
// oracle stages are replaced by ground truth, on the same tasks.
type OracleLift struct {
	Oracle     []string       `json:"oracle"`
	EvalName   string         `json:"eval"`
	Pairs      int            `json:"pairs"`
	WithOracle Rate           `json:"success_with_oracle"`
	Without    Rate           `json:"success_without"`
	Lift       float64        `json:"lift"`
	CI         stats.Interval `json:"ci"`
}

// RepoFailure is one repository's end-to-end failure rate. With one
// repository its interval is null and Note says why.
type RepoFailure struct {
	Repo    string `json:"repo"`
	Failure Rate   `json:"failure"`
	Note    string `json:"note,omitempty"`
}

// TrendPoint is one plain eval run's scores.
type TrendPoint struct {
	EvalRunID int64           `json:"eval_run_id"`
	Name      string          `json:"name"`
	StartedAt time.Time       `json:"started_at"`
	Correct   map[string]Rate `json:"correct"` // stage → share right
	Success   *Rate           `json:"success,omitempty"`
}

// SolveEvidence is what logged solve runs say without ground truth:
// weaker evidence, since nothing says which stage was wrong.
type SolveEvidence struct {
	Runs   int `json:"runs"`
	Failed int `json:"failed"`
	// ScopeDroppedTouched: runs where scope left out a file the final diff
	// touched, against the others.
	ScopeDroppedTouched *Association `json:"scope_dropped_touched,omitempty"`
	DroppedTouchedRuns  int          `json:"scope_dropped_touched_runs"`
	// Retried: runs with a step that needed more than one attempt.
	Retried           *Association `json:"retried,omitempty"`
	Steps             int          `json:"steps"`
	AttemptsPerStep   float64      `json:"attempts_per_step"`
	Adjustments       int          `json:"adjustments"`
	AdjustmentsFailed Rate         `json:"adjustments_failed"`
	PassFailures      []PassRate   `json:"pass_failures"`
}

// PassRate is the failure rate of one kind of orchestrator pass.
type PassRate struct {
	PassType string `json:"pass_type"`
	Failed   Rate   `json:"failed"`
}

// Evidence is every figure train-plan computed; plan.json records it and
// both reports show it.
type Evidence struct {
	EvalRuns     []EvalRunRef    `json:"eval_runs"`
	Observations int             `json:"observations"` // plain-run scored tasks with an end-to-end outcome
	Repos        int             `json:"repos"`
	Success      Rate            `json:"success"` // end-to-end success of plain runs
	Failures     int             `json:"failures"`
	Stages       []StageEvidence `json:"stages"`
	Unattributed Rate            `json:"unattributed"` // failed runs with no wrong stage
	Regression   Regression      `json:"regression"`
	Lifts        []OracleLift    `json:"oracle_lifts"`
	RepoFailures []RepoFailure   `json:"repo_failures"`
	Trend        []TrendPoint    `json:"trend"`
	Solve        *SolveEvidence  `json:"solve_runs,omitempty"`
	// WrongOutputs counts, per stage, the wrong outputs of plain runs:
	// rejected answers for preference pairs.
	WrongOutputs map[string]int `json:"wrong_outputs"`
	// HoldoutRepos are repositories of held-out evaluations.
	HoldoutRepos []string `json:"holdout_repos"`
	// Adapters are the routes the evidence was separated by, the latest
	// gates and what was left out; nil with no adapter anywhere.
	Adapters *AdapterEvidence `json:"adapters,omitempty"`
	// AskEvals are cra ask --eval's scores (its newest run of each name):
	// reported beside the pipeline's, never attributed.
	AskEvals []kb.AskReport `json:"ask_evals,omitempty"`
}

// EvalRunRef names an eval run the evidence read.
type EvalRunRef struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`
	Oracle    []string  `json:"oracle"`
	Split     string    `json:"split"`
	StartedAt time.Time `json:"started_at"`
	Scored    int       `json:"scored"`
}

// Stage returns the evidence of stage, nil if none.
func (e *Evidence) Stage(stage string) *StageEvidence {
	for i := range e.Stages {
		if e.Stages[i].Stage == stage {
			return &e.Stages[i]
		}
	}
	return nil
}
