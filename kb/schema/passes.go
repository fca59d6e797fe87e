package schema

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The orchestrator's plan passes: a meta plan splits a task into parts, a
// part plan splits a part into steps, and an adjustment revises the steps
// left after some were implemented and tested. Ids name parts and steps;
// depends_on names ids that must be done first.

// MetaPlan is the meta_plan pass's answer.
type MetaPlan struct {
	TaskSummary string     `json:"task_summary"`
	Parts       []MetaPart `json:"parts"`
	Rationale   string     `json:"rationale"`
}

// MetaPart is one part of a meta plan.
type MetaPart struct {
	ID            string   `json:"id"`
	Description   string   `json:"description"`
	AffectedFiles []string `json:"affected_files"`
	DependsOn     []string `json:"depends_on"`
}

// PartPlan is the part_plan pass's answer: the steps of one part.
type PartPlan struct {
	PartID      string     `json:"part_id"`
	TaskSummary string     `json:"task_summary"`
	Steps       []PlanStep `json:"steps"`
	Rationale   string     `json:"rationale"`
}

// PlanStep is one step small enough for one implement pass.
type PlanStep struct {
	ID            string   `json:"id"`
	Description   string   `json:"description"`
	TargetFiles   []string `json:"target_files"`
	TargetSymbols []string `json:"target_symbols"`
	DependsOn     []string `json:"depends_on"`
}

// PlanAdjustment is the adjustment pass's answer: the steps that replace
// the remaining ones, in the order to do them (completed steps cannot be
// undone), why, and what changed. Each step is a remaining one kept as
// the plan gave it, or one written out: revised (a remaining step's id)
// or added (a new id); a remaining step it leaves out is dropped.
type PlanAdjustment struct {
	RevisedSteps []AdjustedStep `json:"revised_steps"`
	Rationale    string         `json:"rationale"`
	ChangesMade  []string       `json:"changes_made"`
}

// AdjustedStep is one step of an adjustment. A kept step is named by its
// id alone in the model's answer, so a model keeping a step need not
// write its files, symbols and dependencies again (and cannot get them
// wrong); Resolve fills them in from the plan.
type AdjustedStep struct {
	PlanStep
	Keep bool `json:"keep,omitempty"`
}

// Kept is the remaining step s kept as it is.
func Kept(s PlanStep) AdjustedStep { return AdjustedStep{PlanStep: s, Keep: true} }

// Written is step s written out: revised or added.
func Written(s PlanStep) AdjustedStep { return AdjustedStep{PlanStep: s} }

// Steps are the adjustment's steps in order, as the orchestrator runs
// them (kept ones as Resolve filled them in).
func (a PlanAdjustment) Steps() []PlanStep {
	out := make([]PlanStep, len(a.RevisedSteps))
	for i, s := range a.RevisedSteps {
		out[i] = s.PlanStep
	}
	return out
}

// KeepUnchanged is a with every written step that equals the remaining
// step of its id marked kept: the answer as a model that keeps what it
// does not change writes it.
func (a PlanAdjustment) KeepUnchanged(remaining []PlanStep) PlanAdjustment {
	a.RevisedSteps = slices.Clone(a.RevisedSteps)
	for i, s := range a.RevisedSteps {
		if j := stepIndex(remaining, s.ID); j >= 0 && sameStep(s.PlanStep, remaining[j]) {
			a.RevisedSteps[i] = Kept(remaining[j])
		}
	}
	return a
}

// Resolve fills each kept step in with the remaining step of its id, as
// the plan gave it, and checks the adjustment given the ids of the steps
// done: a kept id must be a step left, and a kept step may restate its
// fields but not change them (a step kept and revised at once says two
// things); a written step may not reuse a done id; ids unique; every
// depends_on names a step of the adjustment or a done one; no cycle. No
// step at all is valid: nothing is left to do.
func (a PlanAdjustment) Resolve(done []string, remaining []PlanStep) (PlanAdjustment, error) {
	a.RevisedSteps = slices.Clone(a.RevisedSteps)
	kept := map[string]bool{}
	for i, s := range a.RevisedSteps {
		if k, seen := kept[s.ID]; seen && k != s.Keep {
			return a, fmt.Errorf("adjustment: step %q is both kept and revised: keep it or write it out, once", s.ID)
		}
		kept[s.ID] = s.Keep
		if slices.Contains(done, s.ID) {
			if s.Keep {
				return a, fmt.Errorf("adjustment: step %q is done already: it cannot be kept", s.ID)
			}
			return a, fmt.Errorf("adjustment: step %q is done already: it cannot be revised", s.ID)
		}
		if !s.Keep {
			continue
		}
		j := stepIndex(remaining, s.ID)
		if j < 0 {
			return a, fmt.Errorf("adjustment: keeps step %q, which is not a step left (left: %s)", s.ID, strings.Join(stepIDs(remaining), ", "))
		}
		if !restates(s.PlanStep, remaining[j]) {
			return a, fmt.Errorf("adjustment: step %q is both kept and revised: keep it as {\"id\": %q, \"keep\": true} alone, or write it out without keep", s.ID, s.ID)
		}
		a.RevisedSteps[i] = Kept(remaining[j])
	}
	return a, stepGraph(a.Steps()).check(done, "adjustment")
}

// Validate checks an adjustment as Resolve does.
func (a PlanAdjustment) Validate(done []string, remaining []PlanStep) error {
	_, err := a.Resolve(done, remaining)
	return err
}

// restates says whether kept step k, as the answer wrote it, says
// nothing the plan's step s does not: each field it wrote equals s's.
func restates(k, s PlanStep) bool {
	return (strings.TrimSpace(k.Description) == "" || strings.TrimSpace(k.Description) == strings.TrimSpace(s.Description)) &&
		(len(k.TargetFiles) == 0 || slices.Equal(k.TargetFiles, s.TargetFiles)) &&
		(len(k.TargetSymbols) == 0 || slices.Equal(k.TargetSymbols, s.TargetSymbols)) &&
		(len(k.DependsOn) == 0 || slices.Equal(k.DependsOn, s.DependsOn))
}

// sameStep says whether a and b are one step (an empty list equals none).
func sameStep(a, b PlanStep) bool {
	return a.ID == b.ID && strings.TrimSpace(a.Description) == strings.TrimSpace(b.Description) &&
		slices.Equal(a.TargetFiles, b.TargetFiles) && slices.Equal(a.TargetSymbols, b.TargetSymbols) && slices.Equal(a.DependsOn, b.DependsOn)
}

func stepIndex(steps []PlanStep, id string) int {
	return slices.IndexFunc(steps, func(s PlanStep) bool { return s.ID == id })
}

func stepIDs(steps []PlanStep) []string {
	ids := make([]string, len(steps))
	for i, s := range steps {
		ids[i] = s.ID
	}
	return ids
}

// Validate checks a meta plan: at least one part, ids present and unique,
// every depends_on naming a part, no cycle.
func (p MetaPlan) Validate() error {
	if len(p.Parts) == 0 {
		return errors.New("meta plan: no part")
	}
	g := graph{kind: "part"}
	for _, part := range p.Parts {
		g.add(part.ID, part.DependsOn)
	}
	return g.check(nil, "meta plan")
}

// Validate checks a part plan: a part id, at least one step, step ids
// present and unique, every depends_on naming a step, no cycle.
func (p PartPlan) Validate() error {
	if strings.TrimSpace(p.PartID) == "" {
		return errors.New("part plan: no part_id")
	}
	if len(p.Steps) == 0 {
		return fmt.Errorf("part plan %s: no step", p.PartID)
	}
	return stepGraph(p.Steps).check(nil, "part plan "+p.PartID)
}

func stepGraph(steps []PlanStep) graph {
	g := graph{kind: "step"}
	for _, s := range steps {
		g.add(s.ID, s.DependsOn)
	}
	return g
}

// graph is the dependency graph of parts or steps, in the order given.
type graph struct {
	kind string
	ids  []string
	deps map[string][]string
	dup  string // the first id given twice
}

func (g *graph) add(id string, deps []string) {
	if g.deps == nil {
		g.deps = map[string][]string{}
	}
	if _, seen := g.deps[id]; seen && g.dup == "" {
		g.dup = id
	}
	g.ids = append(g.ids, id)
	g.deps[id] = deps
}

// check validates ids and edges; external ids may be depended on too.
func (g graph) check(external []string, what string) error {
	for _, id := range g.ids {
		if strings.TrimSpace(id) == "" {
			return fmt.Errorf("%s: a %s has no id", what, g.kind)
		}
	}
	if g.dup != "" {
		return fmt.Errorf("%s: %s id %q is used twice", what, g.kind, g.dup)
	}
	for _, id := range g.ids {
		for _, d := range g.deps[id] {
			if _, ok := g.deps[d]; !ok && !slices.Contains(external, d) {
				return fmt.Errorf("%s: %s %q depends on %q, which is not a %s of it", what, g.kind, id, d, g.kind)
			}
		}
	}
	// Depth-first search for a cycle, reported as the path around it.
	const (
		unseen = iota
		open
		closed
	)
	state := map[string]int{}
	var path []string
	var visit func(id string) error
	visit = func(id string) error {
		switch state[id] {
		case open:
			i := slices.Index(path, id)
			return fmt.Errorf("%s: %ss depend on each other in a cycle: %s", what, g.kind, strings.Join(append(path[i:], id), " → "))
		case closed:
			return nil
		}
		state[id] = open
		path = append(path, id)
		for _, d := range g.deps[id] {
			if _, internal := g.deps[d]; internal {
				if err := visit(d); err != nil {
					return err
				}
			}
		}
		path = path[:len(path)-1]
		state[id] = closed
		return nil
	}
	for _, id := range g.ids {
		if err := visit(id); err != nil {
			return err
		}
	}
	return nil
}
