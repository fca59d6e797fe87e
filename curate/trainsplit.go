package curate

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// MinTrainShare is the share of a stage's examples in train below which
// curate-data warns: a dataset mostly held out trains on little and says
// so before anyone sizes a run for it.
const MinTrainShare = 0.5

// Why an example is in validation, for the refusal and the warnings.
const (
	causeHoldout   = "held out"
	causeFraction  = "fraction"
	causeEval      = "eval"
	causeDistilled = "distilled"
)

// checkTrainSplit refuses a dataset with a stage the selection named (by
// --stages or the training plan's stages) that has no train example, or
// whose stages have no train example at all, unless opts.ValidationOnly
// asks for such a set: a model cannot train on it, and a plan sized for
// its examples would be wrong. It runs before a version is begun, so a
// refusal writes nothing. A stage under MinTrainShare in train is a
// warning, in the log and in sum.Warnings.
func checkTrainSplit(recs []record, sum *Summary, opts Options, plan *schema.TrainingPlan) error {
	sum.Warnings = []string{}
	if opts.ValidationOnly {
		return nil
	}
	causes := validationCauses(recs, opts.split)
	var empty []string
	anyTrain := false
	for _, stage := range slices.Sorted(maps.Keys(sum.Examples)) {
		train, val := sum.Examples[stage][kb.SplitTrain], sum.Examples[stage][kb.SplitValidation]
		anyTrain = anyTrain || train > 0
		why := describeCauses(causes[stage], opts)
		if train == 0 && opts.stagesNamed {
			empty = append(empty, fmt.Sprintf("%s (0 train, %d validation: %s)", stage, val, why))
			continue
		}
		if share := float64(train) / float64(train+val); share < MinTrainShare {
			sum.Warnings = append(sum.Warnings, fmt.Sprintf("stage %s: %d of %d examples in train (%.0f %%, under the %.0f %% curate-data warns at); in validation %s",
				stage, train, train+val, 100*share, 100*MinTrainShare, why))
		}
	}
	if !anyTrain && len(empty) == 0 {
		for _, stage := range slices.Sorted(maps.Keys(sum.Examples)) {
			empty = append(empty, fmt.Sprintf("%s (%d validation: %s)", stage, sum.Examples[stage][kb.SplitValidation], describeCauses(causes[stage], opts)))
		}
	}
	if len(empty) == 0 {
		for _, w := range sum.Warnings {
			opts.Log.Warn(w)
		}
		return nil
	}
	var criteria string
	if plan != nil && plan.DataCriteria != nil {
		c := plan.DataCriteria
		criteria = fmt.Sprintf(" The training plan's data_criteria chose stages [%s], repos [%s], holdout_repos [%s] and validation_fraction %g.",
			strings.Join(c.Stages, ", "), strings.Join(c.Repos, ", "), strings.Join(c.HoldoutRepos, ", "), c.ValidationFraction)
	}
	return usage.Errorf("refused: no train example for %s, so nothing could be trained on it.%s "+
		"To train: hold fewer repositories out (--holdout-repos, [curate] holdout_repos, the plan's data_criteria.holdout_repos), "+
		"lower [curate] validation_fraction, add sources or repositories (--source, --repos), or leave the stage out (--stages); "+
		"to build an evaluation set with no train split on purpose, pass --validation-only. No dataset written",
		strings.Join(empty, "; "), criteria)
}

// validationCauses counts, per stage, why each kept validation example is
// there: its repository is held out, an eval ran it (eval tasks are
// validation data), cra distill stored it so, or the validation fraction
// drew its commit or run.
func validationCauses(recs []record, rule kb.SplitRule) map[string]map[string]int {
	out := map[string]map[string]int{}
	for i := range recs {
		r := &recs[i]
		if r.drop != "" || r.split != kb.SplitValidation {
			continue
		}
		cause := causeFraction
		switch {
		case rule.HeldOutRepo(r.repo):
			cause = causeHoldout
		case r.source == SourceLogged && r.task != "":
			cause = causeEval
		case r.source == SourceDistilled:
			cause = causeDistilled
		}
		if out[r.stage] == nil {
			out[r.stage] = map[string]int{}
		}
		out[r.stage][cause]++
	}
	return out
}

// describeCauses says, for one stage, how many validation examples each
// cause put there.
func describeCauses(c map[string]int, opts Options) string {
	var parts []string
	for _, cause := range []string{causeHoldout, causeFraction, causeEval, causeDistilled} {
		n := c[cause]
		if n == 0 {
			continue
		}
		switch cause {
		case causeHoldout:
			parts = append(parts, fmt.Sprintf("%d from held-out repositories [%s]", n, strings.Join(opts.HoldoutRepos, ", ")))
		case causeFraction:
			parts = append(parts, fmt.Sprintf("%d drawn by validation_fraction %g", n, opts.Curate.ValidationFraction))
		case causeEval:
			parts = append(parts, fmt.Sprintf("%d from tasks cra eval ran (validation data by design)", n))
		case causeDistilled:
			parts = append(parts, fmt.Sprintf("%d distilled with a validation split", n))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
