// Package evaltest is a model for eval tests: it knows each task's ground
// truth and answers as a model that can only use what its prompt shows,
// with errors planted per stage by internal/fakellm's oracle mode.
package evaltest

import (
	"slices"
	"strings"

	"github.com/cra-dev/cra/agent/eval"
	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/kb/schema"
)

// Answer places a request (its stage by the system prompt, its task by
// the task it states) and answers it from that task's ground truth (a
// preflight's ping, stage "", with "ok"):
//   - the meta plan and part plans name only files the prompt shows (the
//     context package, the part's files) or that the commit creates: a
//     model cannot plan a file retrieval lost;
//   - an adjustment keeps the steps left, by their ids;
//   - retrieval inside a step's pass, whose task is the step, keeps
//     nothing (the step's files reach the prompt anyway).
//
// The wrong answers: task analysis names nothing, scope loses the first
// file the commit touched, precision demotes primary symbols to
// supporting, the meta plan loses its last file, a part plan its last
// step, implement adds a line to every replacement.
func Answer(tasks []eval.Task) func(req fakellm.Request) (stage, right, wrong string, ok bool) {
	byText := map[string]eval.Task{}
	for _, t := range tasks {
		byText[strings.TrimSpace(t.Text)] = t
	}
	return func(req fakellm.Request) (string, string, string, bool) {
		if len(req.Messages) == 0 {
			return "", "", "", false
		}
		system, user := req.Messages[0].Content, req.Messages[len(req.Messages)-1].Content
		if IsPing(req) {
			return "", "ok", "ok", true // a preflight's ping: the model answers
		}
		stage := prompt.StageOf(system)
		t, known := byText[prompt.TaskOf(user)]
		if !known {
			switch stage {
			case schema.StageTaskAnalysis:
				a := prompt.RenderTaskAnalysis(prompt.TaskAnalysis{Files: []string{}, Symbols: []string{}, Keywords: []string{}})
				return "", a, a, true
			case schema.StageScope:
				s := prompt.RenderScope(prompt.ScopeResponse{Relevant: []string{}})
				return "", s, s, true
			case schema.StagePrecision:
				p := prompt.RenderPrecision(prompt.PrecisionResponse{Symbols: map[string]string{}})
				return "", p, p, true
			}
			return "", "", "", false
		}
		tr := t.Truth
		switch stage {
		case prompt.PlanAdjustment:
			a := schema.PlanAdjustment{Rationale: "keep going", ChangesMade: []string{}}
			for _, id := range prompt.RemainingSteps(user) {
				a.RevisedSteps = append(a.RevisedSteps, schema.Kept(schema.PlanStep{ID: id}))
			}
			text := prompt.RenderAdjustment(a)
			return stage, text, text, true
		case schema.StageMetaPlan:
			shown := append(prompt.ContextPaths(user), tr.Scope.Created...)
			meta := tr.MetaPlan
			meta.Parts = nil
			for _, p := range tr.MetaPlan.Parts {
				p.AffectedFiles = keep(p.AffectedFiles, shown)
				meta.Parts = append(meta.Parts, p)
			}
			wrong := meta
			wrong.Parts = slices.Clone(meta.Parts)
			if n := len(wrong.Parts[0].AffectedFiles); n > 0 {
				wrong.Parts[0].AffectedFiles = wrong.Parts[0].AffectedFiles[:n-1]
			}
			return stage, prompt.RenderMetaPlan(meta), prompt.RenderMetaPlan(wrong), true
		case schema.StagePartPlan:
			part := tr.PartPlanFor(prompt.PartFiles(user))
			wrong := part
			if n := len(part.Steps); n > 0 {
				wrong.Steps = part.Steps[:n-1]
			}
			return stage, prompt.RenderPartPlan(part), prompt.RenderPartPlan(wrong), true
		}
		right, ok := tr.Answer(stage, user)
		if !ok {
			return "", "", "", false
		}
		return stage, right, wrongAnswer(stage, tr, user, right), true
	}
}

func wrongAnswer(stage string, tr prompt.Truth, user, right string) string {
	switch stage {
	case schema.StageTaskAnalysis:
		return prompt.RenderTaskAnalysis(prompt.TaskAnalysis{Files: []string{}, Symbols: []string{}, Keywords: []string{}})
	case schema.StageScope:
		relevant := []string{}
		if len(tr.Scope.Touched) > 1 {
			relevant = tr.Scope.Touched[1:]
		}
		return prompt.RenderScope(prompt.ScopeResponse{Relevant: relevant})
	case schema.StagePrecision:
		r := prompt.PrecisionResponse{Symbols: map[string]string{}}
		for _, s := range tr.Precision.Symbols {
			switch s.Tier {
			case schema.TierPrimary:
				r.Symbols[s.File+":"+s.QualifiedName] = schema.TierSupporting
			case schema.TierExcluded:
			default:
				r.Symbols[s.File+":"+s.QualifiedName] = s.Tier
			}
		}
		return prompt.RenderPrecision(r)
	case schema.StageImplement:
		edits, err := prompt.ParseEdits(right)
		if err != nil {
			return right
		}
		for i := range edits {
			edits[i].Replace += "# planted error\n"
		}
		return prompt.RenderEdits(edits)
	}
	return right
}

func keep(files, shown []string) []string {
	out := []string{}
	for _, f := range files {
		if slices.Contains(shown, f) {
			out = append(out, f)
		}
	}
	return out
}

// IsPing reports whether req is a preflight's check of a model
// (llm.PingPrompt), which any answer passes.
func IsPing(req fakellm.Request) bool {
	return len(req.Messages) > 0 && req.Messages[len(req.Messages)-1].Content == llm.PingPrompt
}
