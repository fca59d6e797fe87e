package prompt

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cra-dev/cra/kb/schema"
)

// PlanInput is the input of a plan pass: the task and the context package
// (the files it may read, as retrieval assembled them); a part plan also gets its part of the meta plan; an adjustment the
// steps done and left, their test results and the diff so far.
type PlanInput struct {
	Task  string
	Files []ContextFile
	// Part is the meta plan's part a part_plan pass plans in detail.
	Part *schema.MetaPart
	// Done and Remaining are the steps of an adjustment pass.
	Done, Remaining []schema.PlanStep
	// TestResults (a bounded tail of the test output) and PriorChanges (the
	// cumulative diff) tell the orchestrator's later passes what happened.
	TestResults, PriorChanges string
}

// Plan kinds, named by the stage whose prompt each is: one atomic plan (a
// PlanArtifact, the synthetic plan stage and `cra plan`), and the solve
// orchestrator's passes, each answering in its own schema: meta_plan a
// MetaPlan, part_plan a PartPlan, adjustment a PlanAdjustment.
const (
	PlanAtomic     = schema.StagePlan
	PlanMeta       = schema.StageMetaPlan
	PlanPart       = schema.StagePartPlan
	PlanAdjustment = schema.StageAdjustment
)

const (
	planSchema       = `Answer with one JSON object: {"task_summary": "...", "affected_files": [{"path": "...", "role": "modify|create|delete", "changes": [{"symbol": "Class.method or <module>", "action": "modify|add|delete|rename", "description": "what changes and why", "depends_on": ["path:Symbol"], "depended_by": ["path:Symbol"]}]}], "execution_order": ["paths, dependencies first"], "rationale": "..."}. No code in the plan.`
	metaSchema       = `Answer with one JSON object: {"task_summary": "...", "parts": [{"id": "p1", "description": "what the part achieves", "affected_files": ["paths"], "depends_on": ["ids of parts that must be done first"]}], "rationale": "..."}. At least one part; ids unique; no cycle in depends_on. No code in the plan.`
	stepFields       = `"description": "what to change", "target_files": ["paths"], "target_symbols": ["Class.method"], "depends_on": ["ids of steps that must be done first"]}`
	stepSchema       = `{"id": "s1", ` + stepFields
	partSchema       = `Answer with one JSON object: {"part_id": "the part's id", "task_summary": "...", "steps": [` + stepSchema + `], "rationale": "..."}. At least one step; each small enough to implement in one pass; ids unique; no cycle in depends_on. No code in the plan.`
	adjustmentSchema = `Answer with one JSON object: {"revised_steps": [{"id": "s2", "keep": true}, {"id": "s4", ` + stepFields + `], "rationale": "...", "changes_made": ["what you changed and why"]}. revised_steps are the steps left after your answer, in the order to do them: keep a remaining step unchanged with {"id": "...", "keep": true} and nothing else (its files, symbols and dependencies stay as listed); write a step out in full, without keep, to revise it (a remaining step's id) or to add one (a new id); leave a remaining step out to drop it. Done steps stay done (a step may depend on them; none may reuse their ids). An empty revised_steps means nothing is left to do.`
)

var planSystems = map[string]string{
	PlanAtomic:     "You plan a code change. Name every file and symbol to change, the dependency edges between the changes, and an order that changes a file after the files it depends on. " + planSchema,
	PlanMeta:       "You split a large task into parts that can be planned and implemented one after another. Plan at the level of files and parts, with explicit dependencies; later passes plan each part in detail. " + metaSchema,
	PlanPart:       "You plan one part of a larger task in detail, as steps a code editor can each carry out in one pass. " + partSchema,
	PlanAdjustment: "You revise a plan after some of its steps were implemented and tested: keep what worked, change what failed, add what was missing. " + adjustmentSchema,
}

// PlanPrompt renders the prompt of a plan pass of the given kind.
func PlanPrompt(kind string, in PlanInput) Prompt {
	var b strings.Builder
	fmt.Fprintf(&b, "Task:\n%s\n\nFiles:\n", strings.TrimSpace(in.Task))
	writeContext(&b, in.Files)
	if in.Part != nil {
		fmt.Fprintf(&b, "\nPart %s to plan:\n%s\nFiles: %s\n", in.Part.ID, strings.TrimSpace(in.Part.Description), strings.Join(in.Part.AffectedFiles, ", "))
	}
	writeSteps(&b, "Completed steps", in.Done)
	writeRemaining(&b, in.Remaining)
	if in.TestResults != "" {
		fmt.Fprintf(&b, "\n<test_results>\n%s\n</test_results>\n", strings.TrimSpace(in.TestResults))
	}
	if in.PriorChanges != "" {
		fmt.Fprintf(&b, "\n<prior_changes>\n%s\n</prior_changes>\n", strings.TrimSpace(in.PriorChanges))
	}
	system, ok := planSystems[kind]
	if !ok {
		system = planSystems[PlanAtomic]
	}
	return Prompt{System: system, User: b.String()}
}

func writeSteps(b *strings.Builder, title string, steps []schema.PlanStep) {
	if len(steps) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s:\n", title)
	for _, s := range steps {
		fmt.Fprintf(b, "- %s: %s", s.ID, strings.TrimSpace(s.Description))
		if len(s.DependsOn) > 0 {
			fmt.Fprintf(b, " (after %s)", strings.Join(s.DependsOn, ", "))
		}
		b.WriteString("\n")
	}
}

// writeRemaining lists the steps left as the plan gave them, files,
// symbols and dependencies included, under the answer's own field names:
// a model that keeps a step by its id sees what it keeps, and one that
// revises a step starts from all of it rather than guessing its targets.
func writeRemaining(b *strings.Builder, steps []schema.PlanStep) {
	if len(steps) == 0 {
		return
	}
	b.WriteString("\nRemaining steps:\n")
	for _, s := range steps {
		fmt.Fprintf(b, "- %s: %s\n", s.ID, indent(strings.TrimSpace(s.Description)))
		fmt.Fprintf(b, "  target_files: %s\n", listOrNone(s.TargetFiles))
		fmt.Fprintf(b, "  target_symbols: %s\n", listOrNone(s.TargetSymbols))
		fmt.Fprintf(b, "  depends_on: %s\n", listOrNone(s.DependsOn))
	}
}

// indent indents a description's later lines under its step (blank lines
// stay blank), so the list reads back by RemainingSteps.
func indent(text string) string {
	lines := strings.Split(text, "\n")
	for i := 1; i < len(lines); i++ {
		if lines[i] != "" {
			lines[i] = "  " + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "(none)"
	}
	return strings.Join(xs, ", ")
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
	return p, p.Validate()
}

// RenderMetaPlan is the exact response text ParseMetaPlan accepts for p.
func RenderMetaPlan(p schema.MetaPlan) string {
	p.Parts = nonNil(slices.Clone(p.Parts)) // the caller's plan stays as it is
	for i := range p.Parts {
		p.Parts[i].AffectedFiles = nonNil(p.Parts[i].AffectedFiles)
		p.Parts[i].DependsOn = nonNil(p.Parts[i].DependsOn)
	}
	return encodeJSON(p)
}

// ParseMetaPlan reads a meta_plan response and validates it (ids, edges, no
// cycle, at least one part).
func ParseMetaPlan(text string) (schema.MetaPlan, error) {
	var p schema.MetaPlan
	if err := decodeJSON(text, &p); err != nil {
		return p, fmt.Errorf("meta plan: %w", err)
	}
	return p, p.Validate()
}

// RenderPartPlan is the exact response text ParsePartPlan accepts for p.
func RenderPartPlan(p schema.PartPlan) string {
	p.Steps = steps(p.Steps)
	return encodeJSON(p)
}

// ParsePartPlan reads a part_plan response and validates it.
func ParsePartPlan(text string) (schema.PartPlan, error) {
	var p schema.PartPlan
	if err := decodeJSON(text, &p); err != nil {
		return p, fmt.Errorf("part plan: %w", err)
	}
	return p, p.Validate()
}

// RenderAdjustment is the exact response text ParseAdjustment accepts
// for a: a kept step as its id and keep alone, as a model keeping it
// writes it, a revised or added step in full.
func RenderAdjustment(a schema.PlanAdjustment) string {
	type kept struct {
		ID   string `json:"id"`
		Keep bool   `json:"keep"`
	}
	type answer struct {
		RevisedSteps []any    `json:"revised_steps"`
		Rationale    string   `json:"rationale"`
		ChangesMade  []string `json:"changes_made"`
	}
	out := answer{RevisedSteps: []any{}, Rationale: a.Rationale, ChangesMade: nonNil(a.ChangesMade)}
	for _, s := range a.RevisedSteps {
		if s.Keep {
			out.RevisedSteps = append(out.RevisedSteps, kept{ID: s.ID, Keep: true})
			continue
		}
		out.RevisedSteps = append(out.RevisedSteps, steps([]schema.PlanStep{s.PlanStep})[0])
	}
	return encodeJSON(out)
}

// ParseAdjustment reads an adjustment response given the ids of the steps
// done and the steps left: kept steps come back as the plan gave them
// (schema.PlanAdjustment.Resolve, which validates the rest).
func ParseAdjustment(text string, done []string, remaining []schema.PlanStep) (schema.PlanAdjustment, error) {
	var a schema.PlanAdjustment
	if err := decodeJSON(text, &a); err != nil {
		return a, fmt.Errorf("adjustment: %w", err)
	}
	return a.Resolve(done, remaining)
}

// steps is ss with every list present, as rendered answers write them.
func steps(ss []schema.PlanStep) []schema.PlanStep {
	ss = nonNil(slices.Clone(ss))
	for i := range ss {
		ss[i].TargetFiles = nonNil(ss[i].TargetFiles)
		ss[i].TargetSymbols = nonNil(ss[i].TargetSymbols)
		ss[i].DependsOn = nonNil(ss[i].DependsOn)
	}
	return ss
}

// nonNil is xs, or an empty list: rendered answers write [] rather than null.
func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}
