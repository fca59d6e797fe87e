package distill

import (
	"context"
	"encoding/json"
	"slices"
	"sort"

	"github.com/cra-dev/cra/curate"
	"github.com/cra-dev/cra/kb"
)

// register makes the verified answers of the distillation — every run's,
// not only this one's — the next version of the dataset of its name, in
// one transaction, when they differ from its latest version: a killed
// run's verified answers reach the next run's version, and a run that
// verified nothing new adds no version. Every answer's split is made the
// rule's first, so the version holds nothing the rule holds out in train,
// whatever the configuration of the run that verified it.
func (d *distiller) register(ctx context.Context, rule kb.SplitRule) error {
	name := d.opts.Name
	return d.tx(ctx, func(ctx context.Context) error {
		have, latest, err := kb.DistilledExamples(ctx, d.w.Conn, name)
		if err != nil {
			return err
		}
		if have == 0 || have == latest {
			return nil
		}
		if err := curate.ResplitDistilled(ctx, d.w.Conn, name, rule); err != nil {
			return err
		}
		v, err := kb.NextDatasetVersion(ctx, d.w, name)
		if err != nil {
			return err
		}
		if err := kb.StageDistilledExamples(ctx, d.w.Conn, name, v); err != nil {
			return err
		}
		examples, dropped, err := d.versionCounts(ctx)
		if err != nil {
			return err
		}
		criteria, err := json.Marshal(map[string]any{"source": curate.SourceDistilled, "from": d.opts.From, "teacher": d.opts.Teacher.Model,
			"stages": d.opts.Stages, "repos": d.opts.Repos, "sample": d.opts.Sample, "seed": d.opts.Seed,
			"verify": d.opts.Verify, "secrets": d.opts.Curate.Secrets, "validation_fraction": rule.Validation(), "holdout_repos": rule.HoldoutRepos(),
			"context_window": d.opts.Budget.ContextWindow})
		if err != nil {
			return err
		}
		stages := slices.Clone(d.opts.Stages)
		for s := range examples { // stages verified by earlier runs with another selection
			if !slices.Contains(stages, s) {
				stages = append(stages, s)
			}
		}
		sort.Strings(stages[len(d.opts.Stages):])
		if _, err := curate.RegisterVersion(ctx, d.w, curate.BuiltVersion{Name: name, Version: v, Source: curate.SourceDistilled, Stages: stages,
			Criteria: criteria, Plan: d.opts.TrainingPlan, Examples: examples, Dropped: dropped}); err != nil {
			return err
		}
		d.sum.Dataset = kb.DatasetRef{Name: name, Version: v}.String()
		return nil
	})
}

// versionCounts are the distillation's examples per stage and split, and
// its answers left out per reason (rejected by verification, or holding a
// credential under secrets = drop).
func (d *distiller) versionCounts(ctx context.Context) (map[string]map[string]int, map[string]int, error) {
	counts, err := kb.DistilledCounts(ctx, d.w.Conn, d.opts.Name)
	if err != nil {
		return nil, nil, err
	}
	examples, dropped := map[string]map[string]int{}, map[string]int{}
	for _, c := range counts {
		switch {
		case c.Example:
			if examples[c.Stage] == nil {
				examples[c.Stage] = map[string]int{}
			}
			examples[c.Stage][c.Split] += c.N
		case c.Verified:
			dropped[curate.DropSecret] += c.N
		default:
			dropped["unverified"] += c.N
		}
	}
	return examples, dropped, nil
}
