package bootstrap

// FunnelStep is one line of the funnel: a rule and how many commits it
// rejected, or a milestone (Rejected 0, Milestone set) and how many reached it.
type FunnelStep struct {
	Step      string `json:"step"`
	Milestone bool   `json:"milestone,omitempty"`
	Rejected  int    `json:"rejected,omitempty"`
	Remaining int    `json:"remaining"`
}

// Funnel milestones.
const (
	MilestoneSeen     = "seen"
	MilestonePassed   = "passed_filter"
	MilestoneBuilt    = "built"
	MilestoneVerified = "verified"
)

// buildFailures are the outcomes of commits that passed the filter but got
// no ground truth, in the order replay checks them.
var buildFailures = []string{OutcomeSpecialFile, OutcomeTooLarge, OutcomeInvalidUTF8, OutcomeParentParse, OutcomeGroundTruthErr}

// Funnel orders outcome counts as the funnel a user reads: commits seen,
// each filter rule's rejections, those that passed the filter, each reason
// ground truth could not be built, those built, the edit round-trip
// failures, and those verified and stored.
func Funnel(outcomes map[string]int) []FunnelStep {
	seen := 0
	for _, n := range outcomes {
		seen += n
	}
	left := seen
	steps := []FunnelStep{{Step: MilestoneSeen, Milestone: true, Remaining: seen}}
	reject := func(reasons ...string) {
		for _, r := range reasons {
			if n := outcomes[r]; n > 0 {
				left -= n
				steps = append(steps, FunnelStep{Step: r, Rejected: n, Remaining: left})
			}
		}
	}
	reject(OutcomeRootCommit)
	reject(FilterReasons...)
	steps = append(steps, FunnelStep{Step: MilestonePassed, Milestone: true, Remaining: left})
	reject(buildFailures...)
	steps = append(steps, FunnelStep{Step: MilestoneBuilt, Milestone: true, Remaining: left})
	reject(OutcomeEditRoundtrip)
	steps = append(steps, FunnelStep{Step: MilestoneVerified, Milestone: true, Remaining: outcomes[OutcomeVerified]})
	return steps
}
