package curate

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// readPlan reads opts.TrainingPlan, a JSON object. A plan with
// data_criteria (what `cra train-plan` writes) selects what the options
// leave open: its sources, stages and repositories; it can only widen the
// split, never narrow it: its held-out repositories join the options' own
// and its validation fraction counts when larger (the plan holds out what
// its evals ran on, which a configuration changed since may not);
// its kinds (SFT, and preference pairs when it asks for them, unless it
// names kinds); its positive fraction for KTO rows; its logged outcome
// (success: logged runs that succeeded only). Its min_quality is met by
// construction: every positive is right by its stage's rule (tests, an
// eval's verdict, verified ground truth). Any other JSON object is
// recorded with the dataset and selects nothing.
func readPlan(opts *Options) (*schema.TrainingPlan, error) {
	if len(opts.TrainingPlan) == 0 {
		return nil, nil
	}
	var plan schema.TrainingPlan
	if err := json.Unmarshal(opts.TrainingPlan, &plan); err != nil {
		return nil, usage.Errorf("--training-plan: not a training plan (a JSON object): %v", err)
	}
	c := plan.DataCriteria
	if c == nil {
		return &plan, nil
	}
	for _, s := range c.Sources {
		if !slices.Contains(Sources, s) {
			return nil, usage.Errorf("--training-plan: source %q: curate-data reads %s", s, strings.Join(Sources, ", "))
		}
	}
	if c.ValidationFraction < 0 || c.ValidationFraction > 1 {
		return nil, usage.Errorf("--training-plan: validation_fraction %g: give a share between 0 and 1", c.ValidationFraction)
	}
	if len(opts.Sources) == 0 {
		opts.Sources = c.Sources
	}
	if len(opts.Kinds) == 0 {
		opts.Kinds = c.Kinds
		if len(opts.Kinds) == 0 {
			opts.Kinds = []string{kb.KindSFT}
			if c.PreferencePairs {
				opts.Kinds = append(opts.Kinds, kb.KindPreference)
			}
		}
	}
	if opts.PositiveFraction == 0 {
		opts.PositiveFraction = c.PositiveFraction
	}
	if opts.LoggedOutcome == "" {
		opts.LoggedOutcome = c.LoggedOutcome
	}
	if len(opts.Stages) == 0 {
		opts.Stages = c.Stages
	}
	if len(opts.Repos) == 0 {
		opts.Repos = c.Repos
	}
	if len(c.HoldoutRepos) > 0 && len(opts.HoldoutRepos) == 0 {
		// The given list replaces the configured one: start from it, so a
		// repository held out since the plan was written stays out.
		opts.HoldoutRepos = slices.Clone(opts.Curate.HoldoutRepos)
	}
	for _, r := range c.HoldoutRepos {
		if !slices.Contains(opts.HoldoutRepos, r) {
			opts.HoldoutRepos = append(opts.HoldoutRepos, r)
		}
	}
	opts.Curate.ValidationFraction = max(opts.Curate.ValidationFraction, c.ValidationFraction)
	return &plan, nil
}

// recordedPlan is the id of plan's training_plans row when the store
// holds it (train-plan wrote it), so the dataset names that plan instead
// of a copy; 0 otherwise.
func recordedPlan(ctx context.Context, q kb.Querier, plan *schema.TrainingPlan) (int64, error) {
	if plan == nil || plan.PlanID == 0 || plan.TaskID == "" {
		return 0, nil
	}
	ok, err := kb.TrainingPlanRecorded(ctx, q, plan.PlanID, plan.TaskID)
	if err != nil || !ok {
		return 0, err
	}
	return plan.PlanID, nil
}
