package schema

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The orchestrator's plan passes (spec/phase3-code-agent.md WI-2): a meta
// plan splits a task into parts, a part plan splits a part into steps, and
// an adjustment revises the steps left after some were implemented and
// tested. Ids name parts and steps; depends_on names ids that must be done
// first.

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
// the remaining ones (completed steps cannot be undone), why, and what
// changed.
type PlanAdjustment struct {
	RevisedSteps []PlanStep `json:"revised_steps"`
	Rationale    string     `json:"rationale"`
	ChangesMade  []string   `json:"changes_made"`
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

// Validate checks an adjustment given the ids of the steps already done:
// revised step ids present, unique and not among the done ones (a done
// step cannot be revised), every depends_on naming a revised or a done
// step, no cycle. No revised step at all is valid: nothing is left to do.
func (a PlanAdjustment) Validate(done ...string) error {
	g := stepGraph(a.RevisedSteps)
	for _, s := range a.RevisedSteps {
		if slices.Contains(done, s.ID) {
			return fmt.Errorf("adjustment: step %q is done already: it cannot be revised", s.ID)
		}
	}
	return g.check(done, "adjustment")
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
