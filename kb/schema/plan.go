package schema

import (
	"fmt"
	"slices"
)

// PlanArtifact is a plan in the schema of spec/pipeline-and-modes.md 5.1.1.
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
