package schema

import (
	"fmt"
	"slices"
	"strings"
)

// Decompose is the ground truth of the orchestrator's plan passes for a
// one-commit task, derived from its plan: a meta plan of one part that
// touches every affected file (in execution order), and that part's plan
// with one step per affected file in execution order, naming the symbols
// the step changes and depending on the steps of the files its changes
// depend on (earlier steps only: a plan's mutual dependencies, such as
// mutual recursion, keep the execution order's direction).
func Decompose(task string, p PlanArtifact) (MetaPlan, PartPlan) {
	summary := p.TaskSummary
	if summary == "" {
		summary = task
	}
	byPath := map[string]PlanFile{}
	for _, f := range p.AffectedFiles {
		byPath[f.Path] = f
	}
	order := slices.Clone(p.ExecutionOrder)
	for _, f := range p.AffectedFiles { // files the order leaves out go last
		if !slices.Contains(order, f.Path) {
			order = append(order, f.Path)
		}
	}
	meta := MetaPlan{TaskSummary: summary, Rationale: p.Rationale,
		Parts: []MetaPart{{ID: "p1", Description: summary, AffectedFiles: order, DependsOn: []string{}}}}
	part := PartPlan{PartID: "p1", TaskSummary: summary, Rationale: p.Rationale}
	stepOf := map[string]string{}
	for i, path := range order {
		f := byPath[path]
		id := fmt.Sprintf("s%d", i+1)
		stepOf[path] = id
		step := PlanStep{ID: id, TargetFiles: []string{path}, TargetSymbols: []string{}, DependsOn: []string{}}
		var what []string
		for _, c := range f.Changes {
			step.TargetSymbols = append(step.TargetSymbols, c.Symbol)
			what = append(what, c.Description)
			for _, d := range c.DependsOn {
				file, _, _ := strings.Cut(d, ":")
				if dep, ok := stepOf[file]; ok && dep != id && !slices.Contains(step.DependsOn, dep) {
					step.DependsOn = append(step.DependsOn, dep)
				}
			}
		}
		step.Description = strings.ToUpper(f.Role[:min(1, len(f.Role))]) + f.Role[min(1, len(f.Role)):] + " " + path
		if len(what) > 0 {
			step.Description += ": " + strings.Join(what, "; ")
		}
		part.Steps = append(part.Steps, step)
	}
	return meta, part
}
