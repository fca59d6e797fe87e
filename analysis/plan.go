package analysis

import (
	_ "embed"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/stats"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// PlanSchema is the JSON Schema plan.json follows (plan.schema.json).
//
//go:embed plan.schema.json
var PlanSchema []byte

// PlanKind names the document in plan.json.
const PlanKind = "cra.training_plan"

// Plan is the training plan: plan.json and training_plans.raw_plan. The
// embedded TrainingPlan is the part curate-data reads.
type Plan struct {
	Kind string `json:"kind"`
	schema.TrainingPlan
	CreatedAt          time.Time           `json:"created_at"`
	CraVersion         string              `json:"cra_version"`
	Decision           Decision            `json:"decision"`
	DataSource         DataSource          `json:"data_source"`
	Hyperparameters    Hyperparameters     `json:"hyperparameters"`
	ImprovementTargets []ImprovementTarget `json:"improvement_targets"`
	Evidence           *Evidence           `json:"evidence"`
}

// DataSource says where the examples come from, how many each source
// holds for the target stage and how many of those the plan's split puts
// in train.
type DataSource struct {
	Source    string         `json:"source"`    // synthetic, logged, distilled or mix
	Chosen    []string       `json:"chosen"`    // the sources data_criteria names
	Available map[string]int `json:"available"` // synthetic, logged, logged_positive, distilled
	Examples  int            `json:"examples"`  // what the chosen sources hold
	// Train is, per source, what the split (data_criteria's
	// validation_fraction and holdout_repos) leaves in train: synthetic,
	// logged (positives of runs that succeeded), distilled.
	Train         map[string]int `json:"train"`
	TrainExamples int            `json:"train_examples"` // what the chosen sources hold in train
	Note          string         `json:"note,omitempty"`
}

// MinSourceExamples is how many examples a source needs to be chosen
// beside another.
const MinSourceExamples = 50

// Hyperparameters are suggested LoRA settings, scaled by the examples
// available: heuristics, not measurements.
type Hyperparameters struct {
	Method       string  `json:"method"`
	Examples     int     `json:"examples"`
	LoRARank     int     `json:"lora_rank"`
	LoRAAlpha    int     `json:"lora_alpha"`
	LoRADropout  float64 `json:"lora_dropout"`
	LearningRate float64 `json:"learning_rate"`
	Epochs       int     `json:"epochs"`
	BatchSize    int     `json:"batch_size"`
	Steps        int     `json:"steps"`
	WarmupRatio  float64 `json:"warmup_ratio"`
	Basis        string  `json:"basis"`
}

// ImprovementTarget is a metric now and what training should bring it to.
type ImprovementTarget struct {
	Stage  string         `json:"stage"`
	Metric string         `json:"metric"`
	Now    float64        `json:"now"`
	NowCI  stats.Interval `json:"now_ci"`
	Target float64        `json:"target"`
	Basis  string         `json:"basis"`
}

// gapClosed is the share of a stage's errors the targets assume training
// removes: an assumption stated with every target.
const gapClosed = 0.5

// BuildPlan turns a decision to train d.Target into a plan; data is what
// each source holds per stage, counted under split, the split its dataset
// is to be built with; repos the repositories the analysis read.
func BuildPlan(e *Evidence, d Decision, data map[string]kb.StageData, split PlanSplit, repos []string) *Plan {
	stage := e.Stage(d.Target)
	p := &Plan{Kind: PlanKind, Decision: d, Evidence: e}
	p.SchemaVersion = schema.TrainingPlanSchemaVersion
	p.TargetStage = d.Target
	p.BaseModel = string(llm.StageRole(d.Target))
	p.DataSource = dataSource(d.Target, data[d.Target], split)
	wrongOutputs := e.WrongOutputs[d.Target]
	positive := 1.0
	if wrongOutputs >= MinSourceExamples/2 {
		positive = 0.5
	}
	p.DataCriteria = &schema.DataCriteria{
		Stages: []string{d.Target}, Sources: p.DataSource.Chosen, Repos: nonNil(repos),
		HoldoutRepos: nonNil(split.HoldoutRepos), ValidationFraction: split.ValidationFraction, HoldoutNote: split.Note,
		LoggedOutcome: "success", MinQuality: 1, PositiveFraction: positive,
		PreferencePairs: wrongOutputs >= MinSourceExamples/2, ExcludeEvalTasks: true,
	}
	p.Hyperparameters = hyperparameters(p.DataSource.TrainExamples)
	p.ImprovementTargets = targets(e, stage)
	return p
}

// dataSource chooses the sources by what they hold in train: every source
// with MinSourceExamples there, else every source with some, else (the
// split leaves nothing to train on) every source with any example, and the
// note says so.
func dataSource(stage string, d kb.StageData, split PlanSplit) DataSource {
	avail := map[string]int{schema.SourceSynthetic: d.Synthetic, schema.SourceLogged: d.Logged,
		"logged_positive": d.LoggedPositive, schema.SourceDistilled: d.Distilled}
	usable := map[string]int{schema.SourceSynthetic: d.Synthetic, schema.SourceLogged: d.LoggedPositive, schema.SourceDistilled: d.Distilled}
	train := map[string]int{schema.SourceSynthetic: d.SyntheticTrain, schema.SourceLogged: d.LoggedPositiveTrain, schema.SourceDistilled: d.DistilledTrain}
	order := []string{schema.SourceSynthetic, schema.SourceLogged, schema.SourceDistilled}
	pick := func(counts map[string]int, least int) []string {
		var chosen []string
		for _, s := range order {
			if counts[s] >= least {
				chosen = append(chosen, s)
			}
		}
		return chosen
	}
	chosen := pick(train, MinSourceExamples)
	if len(chosen) == 0 {
		chosen = pick(train, 1)
	}
	out := DataSource{Available: avail, Train: train}
	if len(chosen) == 0 {
		chosen = pick(usable, 1)
		if len(chosen) > 0 {
			out.Note = fmt.Sprintf("the split puts every example of this stage in validation (validation_fraction %g, holdout_repos [%s]): "+
				"curate-data would refuse the dataset; hold fewer repositories out ([curate] holdout_repos) or mine more history with `cra bootstrap`",
				split.ValidationFraction, strings.Join(split.HoldoutRepos, ", "))
		}
	}
	if len(chosen) == 0 {
		chosen = []string{schema.SourceLogged}
		out.Note = "no examples for this stage yet: run `cra solve` on real tasks to log some (and `cra distill` for teacher answers)"
		if slices.Contains(schema.SyntheticStages, stage) {
			chosen = []string{schema.SourceSynthetic}
			out.Note = "no examples for this stage yet: run `cra bootstrap` on cloned repositories to mine ground truth"
		}
	}
	out.Chosen = chosen
	out.Source = chosen[0]
	if len(chosen) > 1 {
		out.Source = "mix"
	}
	for _, s := range chosen {
		out.Examples += usable[s]
		out.TrainExamples += train[s]
	}
	return out
}

// hyperparameters scale LoRA's capacity with the train examples: fewer
// trainable parameters and more passes over a small set, more capacity and
// fewer passes over a large one. Validation rows are never trained on, so
// they size nothing.
func hyperparameters(n int) Hyperparameters {
	h := Hyperparameters{Method: "lora", Examples: n, BatchSize: 16, WarmupRatio: 0.03,
		Basis: "scaled by the train examples the data criteria select (data_source.train_examples, before curate-data's filters; " +
			"validation rows size nothing): < 1,000: rank 8, 3 epochs; < 10,000: rank 16, 2 epochs; more: rank 32, 1 epoch; " +
			"alpha twice the rank; steps are the batches of one epoch times the epochs. Common LoRA settings for 1-4B models, not tuned on this data"}
	switch {
	case n < 1000:
		h.LoRARank, h.LearningRate, h.Epochs, h.LoRADropout = 8, 1e-4, 3, 0.1
	case n < 10000:
		h.LoRARank, h.LearningRate, h.Epochs, h.LoRADropout = 16, 2e-4, 2, 0.05
	default:
		h.LoRARank, h.LearningRate, h.Epochs, h.LoRADropout = 32, 2e-4, 1, 0.05
	}
	h.LoRAAlpha = 2 * h.LoRARank
	h.Steps = int(math.Ceil(float64(n)/float64(h.BatchSize))) * h.Epochs
	return h
}

// targets: the stage's share right and end-to-end success, now and after
// training removes half the stage's errors.
func targets(e *Evidence, s *StageEvidence) []ImprovementTarget {
	out := []ImprovementTarget{}
	if s.Correct != nil {
		c := s.Correct
		out = append(out, ImprovementTarget{Stage: s.Stage, Metric: MetricCorrect, Now: c.Value, NowCI: c.CI,
			Target: stats.Round4(c.Value + gapClosed*(1-c.Value)),
			Basis:  "training removes half of the stage's wrong outputs (an assumption; measure it with `cra eval` after training)"})
	}
	now := e.Success
	t := ImprovementTarget{Stage: EndToEnd, Metric: MetricSuccess, Now: now.Value, NowCI: now.CI}
	switch {
	case s.Lift != nil:
		t.Target = stats.Round4(now.Value + gapClosed*s.Lift.Lift)
		t.Basis = "half the oracle lift of the stage: ground truth in its place is the ceiling"
	case s.Association != nil && s.Correct != nil:
		// Failure rates given right and wrong stay as observed while the
		// wrong share halves.
		w := (1 - s.Correct.Value) * (1 - gapClosed)
		fail := s.Association.FailIfNot.Value*(1-w) + s.Association.FailIf.Value*w
		t.Target = stats.Round4(math.Max(now.Value, 1-fail))
		t.Basis = "the stage's wrong share halves while failure given right and given wrong stays as observed"
	default:
		return out
	}
	return append(out, t)
}
