package schema

import (
	"fmt"
	"slices"
)

// PlanArtifact is an atomic plan (cra plan, the synthetic plan stage): the
// files to change, each with its role and symbol-level changes, and the
// order to change them in.
type PlanArtifact struct {
	TaskSummary    string     `json:"task_summary"`
	AffectedFiles  []PlanFile `json:"affected_files"`
	ExecutionOrder []string   `json:"execution_order"`
	Rationale      string     `json:"rationale"`
}

// PlanFile is one file a plan changes; Role is modify, create or delete.
type PlanFile struct {
	Path    string       `json:"path"`
	Role    string       `json:"role"`
	Changes []PlanChange `json:"changes"`
}

// PlanChange is one symbol-level change; Action is modify, add, delete or
// rename. DependsOn and DependedBy name other changes as "path:Symbol".
type PlanChange struct {
	Symbol      string   `json:"symbol"`
	Action      string   `json:"action"`
	Description string   `json:"description"`
	DependsOn   []string `json:"depends_on"`
	DependedBy  []string `json:"depended_by"`
}

// File roles and change actions of a plan.
var (
	PlanRoles   = []string{"modify", "create", "delete"}
	PlanActions = []string{"modify", "add", "delete", "rename"}
)

// Validate checks a plan's roles and actions, and that its execution order
// names only affected files.
func (p PlanArtifact) Validate() error {
	files := map[string]bool{}
	for _, f := range p.AffectedFiles {
		files[f.Path] = true
		if !slices.Contains(PlanRoles, f.Role) {
			return fmt.Errorf("plan: %s: unknown role %q", f.Path, f.Role)
		}
		for _, c := range f.Changes {
			if !slices.Contains(PlanActions, c.Action) {
				return fmt.Errorf("plan: %s:%s: unknown action %q", f.Path, c.Symbol, c.Action)
			}
		}
	}
	for _, o := range p.ExecutionOrder {
		if !files[o] {
			return fmt.Errorf("plan: execution order names %s, which is not an affected file", o)
		}
	}
	return nil
}

// Check validates a plan against the repository it changes, beyond
// Validate: files to modify or delete exist (exists says), files to create
// do not, the execution order names every affected file, and every
// depends_on and depended_by names a change of the plan ("path:Symbol").
// Changes may depend on each other both ways (mutual recursion): only the
// file order has to be a line.
func (p PlanArtifact) Check(exists func(path string) bool) error {
	if err := p.Validate(); err != nil {
		return err
	}
	changes := map[string]bool{}
	for _, f := range p.AffectedFiles {
		for _, c := range f.Changes {
			changes[f.Path+":"+c.Symbol] = true
		}
	}
	for _, f := range p.AffectedFiles {
		switch {
		case f.Role != "create" && !exists(f.Path):
			return fmt.Errorf("plan: %s does not exist: it can be created, not %sd", f.Path, f.Role)
		case f.Role == "create" && exists(f.Path):
			return fmt.Errorf("plan: %s exists already: modify it rather than create it", f.Path)
		case !slices.Contains(p.ExecutionOrder, f.Path):
			return fmt.Errorf("plan: the execution order leaves out %s", f.Path)
		}
		for _, c := range f.Changes {
			for _, d := range append(slices.Clone(c.DependsOn), c.DependedBy...) {
				if !changes[d] {
					return fmt.Errorf("plan: %s:%s names %q, which is no change of the plan", f.Path, c.Symbol, d)
				}
			}
		}
	}
	return nil
}
