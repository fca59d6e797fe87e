package analysis

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cra-dev/cra/kb"
)

// PlanSplit is the split rule a plan's dataset is to be built with: the
// configured one ([curate] validation_fraction and holdout_repos), widened
// only as far as it takes to keep every task an eval ran out of train.
//
// Eval tasks are held out by that same rule already, so normally the plan
// holds out exactly what the configuration does and no whole repository
// besides. When the configuration changed since an eval, some evaluated
// tasks would train; for each of them the plan records what the eval must
// have used: an eval run with --split validation drew it from the
// validation fraction, so the fraction is raised just above the task's
// hash; an eval run with --split holdout or all-held-out may have held its
// repository out whole, so that repository is held out.
type PlanSplit struct {
	ValidationFraction float64
	HoldoutRepos       []string // sorted
	// Note says what was widened and why; empty when nothing was.
	Note string
	// Rule is the configured rule widened so: the split the plan's data
	// is counted under, as curate-data will apply it.
	Rule kb.SplitRule
}

// planSplit widens the configured rule (its groups loaded) until no
// evaluated task trains.
func planSplit(configured kb.SplitRule, evaluated []kb.EvaluatedTask) PlanSplit {
	p := PlanSplit{ValidationFraction: configured.Validation(), HoldoutRepos: nonNil(configured.HoldoutRepos())}
	var outside []kb.EvaluatedTask
	for _, t := range evaluated {
		if configured.Split(t.Repo, t.Commit) == kb.SplitTrain {
			outside = append(outside, t)
		}
	}
	var added []string
	for _, t := range outside {
		if t.Split != evalSplitValidation && !slices.Contains(p.HoldoutRepos, t.Repo) {
			p.HoldoutRepos = append(p.HoldoutRepos, t.Repo)
			added = append(added, t.Repo)
		}
	}
	slices.Sort(p.HoldoutRepos)
	for _, t := range outside {
		if !slices.Contains(p.HoldoutRepos, t.Repo) {
			// The smallest 4-decimal fraction above the hash of the task's
			// group (a merged branch's parts share its merge's).
			h := kb.UnitHash(t.Repo, configured.Group(t.Repo, t.Commit))
			p.ValidationFraction = math.Max(p.ValidationFraction, math.Floor(h*1e4)/1e4+1e-4)
		}
	}
	p.Rule = configured.Widened(p.ValidationFraction, p.HoldoutRepos)
	if len(outside) == 0 {
		return p
	}
	var did []string
	if len(added) > 0 {
		did = append(did, fmt.Sprintf("held out %s whole (an eval with --split holdout or all-held-out ran on it)", strings.Join(added, ", ")))
	}
	if p.ValidationFraction > configured.Validation() {
		did = append(did, fmt.Sprintf("raised the validation fraction to %g (an eval with --split validation drew from a larger one)", p.ValidationFraction))
	}
	p.Note = fmt.Sprintf("%d evaluated tasks would be in train under [curate] validation_fraction = %g and holdout_repos = [%s], "+
		"so the evals ran under another configuration: the plan %s", len(outside), configured.Validation(), strings.Join(nonNil(configured.HoldoutRepos()), ", "), strings.Join(did, " and "))
	return p
}

// evalSplitValidation is agent/eval's SplitValidation (--split validation,
// as eval_runs.split holds it): eval imports analysis, so it cannot be
// named from here.
const evalSplitValidation = "validation"
