package analysis

import (
	"testing"

	"github.com/cra-dev/cra/internal/stats"
)

// TestDecide holds the target rule on both sides of each of its
// comparisons: an oracle lift counts only when its interval's lower end is
// above zero (not at it, not when only the upper end is), the largest such
// lift wins and the first of equal ones (pipeline order) keeps it; failing
// that, a significant stage charged MinCharged failed runs or more with
// the largest blame share.
func TestDecide(t *testing.T) {
	lift := func(l, lo, hi float64) *OracleLift {
		return &OracleLift{Lift: l, CI: stats.Interval{Lo: lo, Hi: hi}, Pairs: 40}
	}
	blamed := func(stage string, k int, share float64, significant bool) StageEvidence {
		return StageEvidence{Stage: stage, Significant: significant, Blame: Rate{K: k, N: 40, Value: share},
			Association: &Association{FailIf: Rate{Value: 0.9}, FailIfNot: Rate{Value: 0.2}, OddsRatio: 30, ORCI: stats.Interval{Lo: 5, Hi: 100}, HolmP: 0.001}}
	}
	cases := map[string]struct {
		obs    int
		stages []StageEvidence
		status string
		target string
		rule   string
	}{
		"a lift whose interval straddles 0 is not chosen": {
			obs: 40, stages: []StageEvidence{{Stage: "scope", Lift: lift(0.3, -0.05, 0.6)}},
			status: StatusNoStandout},
		"a lift whose interval starts at 0 is not chosen": {
			obs: 40, stages: []StageEvidence{{Stage: "scope", Lift: lift(0.3, 0, 0.6)}},
			status: StatusNoStandout},
		"a lift just above 0 is chosen": {
			obs: 40, stages: []StageEvidence{{Stage: "scope", Lift: lift(0.3, 0.001, 0.6)}},
			status: StatusPlan, target: "scope", rule: RuleOracleLift},
		"the largest significant lift wins over a larger one that straddles 0": {
			obs: 40, stages: []StageEvidence{
				{Stage: "task_analysis", Lift: lift(0.2, 0.05, 0.35)},
				{Stage: "scope", Lift: lift(0.4, 0.1, 0.7)},
				{Stage: "precision", Lift: lift(0.6, -0.1, 1)},
				{Stage: "implement", Lift: lift(0.1, 0.02, 0.2)}},
			status: StatusPlan, target: "scope", rule: RuleOracleLift},
		"the largest lift wins whatever the order": {
			obs: 40, stages: []StageEvidence{
				{Stage: "scope", Lift: lift(0.4, 0.1, 0.7)},
				{Stage: "precision", Lift: lift(0.2, 0.05, 0.35)}},
			status: StatusPlan, target: "scope", rule: RuleOracleLift},
		"equal lifts: the earlier stage keeps it": {
			obs: 40, stages: []StageEvidence{
				{Stage: "scope", Lift: lift(0.3, 0.1, 0.5)},
				{Stage: "precision", Lift: lift(0.3, 0.1, 0.5)}},
			status: StatusPlan, target: "scope", rule: RuleOracleLift},
		"a significant lift beats a larger blame share": {
			obs: 40, stages: []StageEvidence{
				blamed("scope", 30, 0.75, true),
				{Stage: "implement", Lift: lift(0.15, 0.01, 0.3)}},
			status: StatusPlan, target: "implement", rule: RuleOracleLift},
		"no lift: the significant stage with the largest blame share": {
			obs: 40, stages: []StageEvidence{
				blamed("scope", 10, 0.25, true),
				blamed("precision", 20, 0.5, true),
				blamed("implement", 30, 0.75, false)},
			status: StatusPlan, target: "precision", rule: RuleBlameShare},
		"equal blame shares: the earlier stage keeps it": {
			obs: 40, stages: []StageEvidence{blamed("scope", 10, 0.25, true), blamed("precision", 10, 0.25, true)},
			status: StatusPlan, target: "scope", rule: RuleBlameShare},
		"charged MinCharged failed runs: chosen": {
			obs: 40, stages: []StageEvidence{blamed("scope", MinCharged, 0.2, true)},
			status: StatusPlan, target: "scope", rule: RuleBlameShare},
		"charged one fewer than MinCharged: not chosen": {
			obs: 40, stages: []StageEvidence{blamed("scope", MinCharged-1, 0.2, true)},
			status: StatusNoStandout},
		"no lift at all and nothing significant": {
			obs: 40, stages: []StageEvidence{blamed("scope", 30, 0.75, false), {Stage: "precision"}},
			status: StatusNoStandout},
		"too few observations and no oracle pairs": {
			obs: MinObservations - 1, stages: []StageEvidence{blamed("scope", 30, 0.75, true)},
			status: StatusNotEnoughData},
		"MinObservations observations are enough": {
			obs: MinObservations, stages: []StageEvidence{blamed("scope", 30, 0.75, true)},
			status: StatusPlan, target: "scope", rule: RuleBlameShare},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := &Evidence{Observations: tc.obs, Stages: tc.stages}
			for _, s := range tc.stages {
				if s.Lift != nil {
					e.Lifts = append(e.Lifts, *s.Lift)
				}
			}
			d := Decide(e)
			if d.Status != tc.status || d.Target != tc.target || d.Rule != tc.rule {
				t.Errorf("decision %s %q by %q (%s); want %s %q by %q", d.Status, d.Target, d.Rule, d.Reason, tc.status, tc.target, tc.rule)
			}
		})
	}
}
