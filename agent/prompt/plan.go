package prompt

import (
	"fmt"
	"strings"

	"github.com/cra-dev/cra/kb/schema"
)

// PlanContext is a file the planner may read: its path and the signatures
// of its symbols (plans name symbols; they do not need bodies).
type PlanContext struct {
	Path       string
	Signatures []string
}

// PlanInput is the plan stage's input.
type PlanInput struct {
	Task  string
	Files []PlanContext
}

// Plan kinds: one atomic plan, and the solve orchestrator's passes, which
// share the schema and differ in what they are asked to cover.
const (
	PlanAtomic     = "plan"
	PlanMeta       = "meta_plan"
	PlanPart       = "part_plan"
	PlanAdjustment = "adjustment"
)

const planSchema = `Answer with one JSON object: {"task_summary": "...", "affected_files": [{"path": "...", "role": "modify|create|delete", "changes": [{"symbol": "Class.method or <module>", "action": "modify|add|delete|rename", "description": "what changes and why", "depends_on": ["path:Symbol"], "depended_by": ["path:Symbol"]}]}], "execution_order": ["paths, dependencies first"], "rationale": "..."}. No code in the plan.`

var planSystems = map[string]string{
	PlanAtomic:     "You plan a code change. Name every file and symbol to change, the dependency edges between the changes, and an order that changes a file after the files it depends on. " + planSchema,
	PlanMeta:       "You split a large task into parts that can be planned and implemented one after another. Plan at the level of files and parts; later passes plan each part in detail. " + planSchema,
	PlanPart:       "You plan one part of a larger task in detail, given the files it touches. " + planSchema,
	PlanAdjustment: "You revise a plan after some of its steps were implemented and tested: keep what worked, change what failed, add what was missing. " + planSchema,
}

// PlanPrompt renders the prompt of a plan pass of the given kind.
func PlanPrompt(kind string, in PlanInput) Prompt {
	var b strings.Builder
	fmt.Fprintf(&b, "Task:\n%s\n\nFiles:\n", strings.TrimSpace(in.Task))
	for _, f := range in.Files {
		fmt.Fprintf(&b, "%s\n", f.Path)
		for _, s := range f.Signatures {
			fmt.Fprintf(&b, "    %s\n", strings.TrimSpace(s))
		}
	}
	system, ok := planSystems[kind]
	if !ok {
		system = planSystems[PlanAtomic]
	}
	return Prompt{System: system, User: b.String()}
}

// RenderPlan is the exact response text ParsePlan accepts for p.
func RenderPlan(p schema.PlanArtifact) string {
	if p.AffectedFiles == nil {
		p.AffectedFiles = []schema.PlanFile{}
	}
	if p.ExecutionOrder == nil {
		p.ExecutionOrder = []string{}
	}
	for i := range p.AffectedFiles {
		f := &p.AffectedFiles[i]
		if f.Changes == nil {
			f.Changes = []schema.PlanChange{}
		}
		for j := range f.Changes {
			c := &f.Changes[j]
			if c.DependsOn == nil {
				c.DependsOn = []string{}
			}
			if c.DependedBy == nil {
				c.DependedBy = []string{}
			}
		}
	}
	return encodeJSON(p)
}

// ParsePlan reads a plan response and checks its roles, actions and that
// the execution order names only affected files.
func ParsePlan(text string) (schema.PlanArtifact, error) {
	var p schema.PlanArtifact
	if err := decodeJSON(text, &p); err != nil {
		return p, fmt.Errorf("plan: %w", err)
	}
	files := map[string]bool{}
	for _, f := range p.AffectedFiles {
		files[f.Path] = true
		switch f.Role {
		case "modify", "create", "delete":
		default:
			return p, fmt.Errorf("plan: %s: unknown role %q", f.Path, f.Role)
		}
		for _, c := range f.Changes {
			switch c.Action {
			case "modify", "add", "delete", "rename":
			default:
				return p, fmt.Errorf("plan: %s:%s: unknown action %q", f.Path, c.Symbol, c.Action)
			}
		}
	}
	for _, o := range p.ExecutionOrder {
		if !files[o] {
			return p, fmt.Errorf("plan: execution order names %s, which is not an affected file", o)
		}
	}
	return p, nil
}
