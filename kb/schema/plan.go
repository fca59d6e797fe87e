package schema

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
