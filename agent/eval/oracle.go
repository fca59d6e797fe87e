package eval

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/kb/schema"
)

// OracleStages are the stages --oracle can replace by their ground truth:
// those with one. (An adjustment has none: it revises the model's own
// steps.)
var OracleStages = []string{schema.StageTaskAnalysis, schema.StageScope, schema.StagePrecision,
	schema.StageMetaPlan, schema.StagePartPlan, schema.StageImplement}

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
		a := prompt.TaskAnalysis{Summary: t.Plan.TaskSummary, Files: t.touched(), Symbols: []string{}, Keywords: []string{}}
		for _, s := range t.Precision.Symbols {
			if s.Tier == schema.DetailPrimary && !slices.Contains(a.Symbols, s.Name) {
				a.Symbols = append(a.Symbols, s.Name)
			}
		}
		return prompt.RenderTaskAnalysis(a), true
	case schema.StageScope:
		return prompt.RenderScope(prompt.ScopeResponse{Relevant: t.touched()}), true
	case schema.StagePrecision:
		r := prompt.PrecisionResponse{Symbols: map[string]string{}}
		for _, s := range t.Precision.Symbols {
			if s.Tier != schema.DetailExcluded {
				r.Symbols[s.File+":"+s.QualifiedName] = s.Tier
			}
		}
		return prompt.RenderPrecision(r), true
	case schema.StageMetaPlan:
		return prompt.RenderMetaPlan(t.MetaPlan), len(t.MetaPlan.Parts) > 0
	case schema.StagePartPlan:
		pp := t.PartPlanFor(prompt.PartFiles(user))
		return prompt.RenderPartPlan(pp), len(pp.Steps) > 0
	case schema.StageImplement:
		files := prompt.StepFiles(user)
		var edits []schema.Edit
		for _, e := range t.Implement.Edits {
			if files == nil || slices.Contains(files, e.File) {
				edits = append(edits, e)
			}
		}
		return prompt.RenderEdits(edits), true
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

// touched are the files the commit changed that exist at its parent.
func (t Truth) touched() []string {
	if t.Scope.Touched == nil {
		return []string{}
	}
	return t.Scope.Touched
}

// oracleClient answers the calls of the oracle stages with the ground
// truth, unsent, and passes every other call to the model. Its answers
// are logged like any call (model "oracle"), so a run's rows say which
// stages were the model's.
type oracleClient struct {
	inner  llm.Client
	truth  Truth
	stages []string
}

// OracleModel is the model name the calls an oracle answered are logged
// under.
const OracleModel = "oracle"

func (c *oracleClient) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if slices.Contains(c.stages, req.CallType) {
		if text, ok := c.truth.Answer(req.CallType, req.Prompt); ok {
			return llm.Response{Text: text, Model: OracleModel, Provider: "cra", Attempts: 1, Latency: time.Microsecond}, nil
		}
	}
	if c.inner == nil {
		return llm.Response{}, fmt.Errorf("no model for %s", req.CallType)
	}
	return c.inner.Complete(ctx, req)
}

func (c *oracleClient) Close() error {
	if c.inner == nil {
		return nil
	}
	return c.inner.Close()
}
