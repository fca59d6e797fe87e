package analysis

import (
	"fmt"
	"strings"
)

// Outcomes of a train-plan run.
const (
	StatusPlan          = "plan"                // a target stage was chosen: plan.json and a training_plans row
	StatusNoStandout    = "no_stage_stands_out" // enough data, but no stage meets the rule
	StatusNotEnoughData = "not_enough_data"     // too few scored eval tasks to conclude anything
)

// Rules that choose a target.
const (
	RuleOracleLift = "oracle_lift"
	RuleBlameShare = "blame_share"
)

// TheRule is the target rule as the reports state it.
var TheRule = "1. the stage whose oracle substitution lifts end-to-end success most, among those whose 95 % interval " +
	"excludes zero; else 2. the stage with the largest first-error blame share among those whose wrong output is " +
	"significantly associated with failure (Holm-adjusted Fisher p < 0.05 and odds-ratio interval above 1) and that " +
	fmt.Sprint(MinCharged) + " or more failed runs are charged to; else 3. no target, with the number of eval tasks " +
	"that would show the largest effect observed."

// Decision is which stage to train and why.
type Decision struct {
	Status string `json:"status"`
	Target string `json:"target_stage,omitempty"`
	Rule   string `json:"rule,omitempty"`
	Reason string `json:"reason"`
	// Power is set when no stage stands out: what more evidence would take.
	Power *PowerEstimate `json:"power,omitempty"`
}

// PowerEstimate says how many eval tasks would show a stage's observed
// association at the analysis's level and power.
type PowerEstimate struct {
	Stage       string  `json:"stage"`
	TasksNeeded int     `json:"tasks_needed"`
	TasksHave   int     `json:"tasks_have"`
	FailIfWrong float64 `json:"fail_if_wrong"`
	FailIfRight float64 `json:"fail_if_right"`
}

// Decide applies the target rule to the evidence.
func Decide(e *Evidence) Decision {
	pairs := 0
	for _, l := range e.Lifts {
		pairs = max(pairs, l.Pairs)
	}
	if e.Observations < MinObservations && pairs < MinObservations {
		return Decision{Status: StatusNotEnoughData, Reason: fmt.Sprintf(
			"not enough evidence yet: %d scored eval tasks with an end-to-end outcome and %d oracle pairs; train-plan needs "+
				"at least %d.%s Run `cra eval` on held-out tasks (with oracle stages for causal evidence), then `cra train-plan` again.",
			e.Observations, pairs, MinObservations, e.Adapters.leftOut())}
	}
	var best *StageEvidence
	for i := range e.Stages {
		s := &e.Stages[i]
		if s.Lift != nil && s.Lift.CI.Lo > 0 && (best == nil || s.Lift.Lift > best.Lift.Lift) {
			best = s
		}
	}
	if best != nil {
		l := best.Lift
		return Decision{Status: StatusPlan, Target: best.Stage, Rule: RuleOracleLift, Reason: fmt.Sprintf(
			"replacing %s by ground truth raised end-to-end success from %s to %s on %d paired tasks: a lift of %s (95 %% CI %s to %s).",
			best.Stage, pct(l.Without.Value), pct(l.WithOracle.Value), l.Pairs, signedPct(l.Lift), signedPct(l.CI.Lo), signedPct(l.CI.Hi))}
	}
	for i := range e.Stages {
		s := &e.Stages[i]
		if s.Significant && s.Blame.K >= MinCharged && (best == nil || s.Blame.Value > best.Blame.Value) {
			best = s
		}
	}
	if best != nil {
		a := best.Association
		return Decision{Status: StatusPlan, Target: best.Stage, Rule: RuleBlameShare, Reason: fmt.Sprintf(
			"%s is the earliest wrong stage in %d of %d failed runs (%s); runs where it was wrong failed %s of the time against %s "+
				"where it was right (odds ratio %s, 95 %% CI %s to %s; Holm-adjusted Fisher p %s).",
			best.Stage, best.Blame.K, best.Blame.N, pct(best.Blame.Value), pct(a.FailIf.Value), pct(a.FailIfNot.Value),
			num(a.OddsRatio), num(a.ORCI.Lo), num(a.ORCI.Hi), pval(a.HolmP))}
	}
	d := Decision{Status: StatusNoStandout}
	d.Power = power(e)
	var why strings.Builder
	why.WriteString("no stage stands out: no oracle lift excludes zero and no stage's wrong output is significantly associated with failure")
	if d.Power != nil {
		p := d.Power
		fmt.Fprintf(&why, ". The largest effect observed, %s (runs failed %s when it was wrong, %s when right), would need about %s "+
			"scored eval tasks to show at 80 %% power; there are %s. Run `cra eval` on more held-out tasks, or with %s as an oracle stage.",
			p.Stage, pct(p.FailIfWrong), pct(p.FailIfRight), thousands(p.TasksNeeded), thousands(p.TasksHave), p.Stage)
	} else {
		why.WriteString(", and no stage shows any difference in failure between right and wrong outputs.")
	}
	d.Reason = why.String()
	return d
}

// power picks the stage rule 2 would have favoured — the largest blame
// share among stages with a finite estimate — and says what it needs.
func power(e *Evidence) *PowerEstimate {
	var best *StageEvidence
	for i := range e.Stages {
		s := &e.Stages[i]
		if s.TasksNeeded != nil && s.Association.FailIf.Value > s.Association.FailIfNot.Value &&
			(best == nil || s.Blame.Value > best.Blame.Value) {
			best = s
		}
	}
	if best == nil {
		return nil
	}
	a := best.Association
	return &PowerEstimate{Stage: best.Stage, TasksNeeded: *best.TasksNeeded, TasksHave: a.FailIf.N + a.FailIfNot.N,
		FailIfWrong: a.FailIf.Value, FailIfRight: a.FailIfNot.Value}
}

// Number formats shared by the reports and the reasons.
func pct(x float64) string { return fmt.Sprintf("%.1f %%", 100*x) }

func signedPct(x float64) string { return fmt.Sprintf("%+.1f pp", 100*x) }

func num(x float64) string {
	if x >= 100 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.2f", x)
}

func pval(p float64) string {
	if p < 0.0001 {
		return "< 0.0001"
	}
	return fmt.Sprintf("%.4f", p)
}
