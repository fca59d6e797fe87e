package prompt

import (
	"slices"

	"github.com/cra-dev/cra/kb/schema"
)

// Truth is a synthetic task's ground truth, stage by stage (the targets
// bootstrap stored, keyed by stage): what an oracle answers from, and
// what a wrong logged answer's preference pair takes as its chosen side.
type Truth struct {
	Scope     schema.ScopeTarget     `json:"scope"`
	Precision schema.PrecisionTarget `json:"precision"`
	Plan      schema.PlanArtifact    `json:"plan"`
	MetaPlan  schema.MetaPlan        `json:"meta_plan"`
	PartPlan  schema.PartPlan        `json:"part_plan"`
	Implement schema.ImplementTarget `json:"implement"`
}

// Answer is the ground-truth answer to a request of stage, in the text
// the stage's parser accepts (rendered by agent/prompt, as training data
// is): the task analysis names the files and primary symbols the commit
// changed; scope keeps the touched files; precision gives every symbol's
// tier; meta_plan and part_plan are the commit's decomposition; implement
// gives the commit's edits of the files the prompt's step targets (all of
// them when it names none). ok is false for a stage without ground truth
// for this task.
func (t Truth) Answer(stage, user string) (string, bool) {
	switch stage {
	case schema.StageTaskAnalysis:
		a := TaskAnalysis{Summary: t.Plan.TaskSummary, Files: t.Touched(), Symbols: []string{}, Keywords: []string{}}
		for _, s := range t.Precision.Symbols {
			if s.Tier == schema.TierPrimary && !slices.Contains(a.Symbols, s.Name) {
				a.Symbols = append(a.Symbols, s.Name)
			}
		}
		return RenderTaskAnalysis(a), true
	case schema.StageScope:
		return RenderScope(ScopeResponse{Relevant: t.Touched()}), true
	case schema.StagePrecision:
		r := PrecisionResponse{Symbols: map[string]string{}}
		for _, s := range t.Precision.Symbols {
			if s.Tier != schema.TierExcluded {
				r.Symbols[s.File+":"+s.QualifiedName] = s.Tier
			}
		}
		return RenderPrecision(r), true
	case schema.StageMetaPlan:
		return RenderMetaPlan(t.MetaPlan), len(t.MetaPlan.Parts) > 0
	case schema.StagePartPlan:
		pp := t.PartPlanFor(PartFiles(user))
		return RenderPartPlan(pp), len(pp.Steps) > 0
	case schema.StageImplement:
		files := StepFiles(user)
		var edits []schema.Edit
		for _, e := range t.Implement.Edits {
			if files == nil || slices.Contains(files, e.File) {
				edits = append(edits, e)
			}
		}
		return RenderEdits(edits), true
	}
	return "", false
}

// PartPlanFor is the ground-truth plan of the part of the task that
// affects files (all of the task when files is nil): the steps of the
// task's part plan on those files, or — for a merged branch's task, which
// has a plan per part — the task's plan on those files decomposed into
// steps (schema.Decompose).
func (t Truth) PartPlanFor(files []string) schema.PartPlan {
	in := func(paths []string) bool {
		return files == nil || slices.ContainsFunc(paths, func(p string) bool { return slices.Contains(files, p) })
	}
	if len(t.PartPlan.Steps) > 0 {
		pp := t.PartPlan
		pp.Steps = nil
		var kept []string
		for _, s := range t.PartPlan.Steps {
			if in(s.TargetFiles) {
				pp.Steps = append(pp.Steps, s)
				kept = append(kept, s.ID)
			}
		}
		for i, s := range pp.Steps { // a step left out is no dependency
			deps := []string{}
			for _, d := range s.DependsOn {
				if slices.Contains(kept, d) {
					deps = append(deps, d)
				}
			}
			pp.Steps[i].DependsOn = deps
		}
		return pp
	}
	plan := t.Plan
	plan.AffectedFiles, plan.ExecutionOrder = nil, nil
	for _, f := range t.Plan.AffectedFiles {
		if in([]string{f.Path}) {
			plan.AffectedFiles = append(plan.AffectedFiles, f)
		}
	}
	for _, o := range t.Plan.ExecutionOrder {
		if in([]string{o}) {
			plan.ExecutionOrder = append(plan.ExecutionOrder, o)
		}
	}
	_, pp := schema.Decompose(t.Plan.TaskSummary, plan)
	return pp
}

// Touched are the files the commit changed that exist at its parent.
func (t Truth) Touched() []string {
	if t.Scope.Touched == nil {
		return []string{}
	}
	return t.Scope.Touched
}
