package orchestrator

import (
	"slices"

	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/kb/schema"
)

// Stages are the stages whose models a run calls, which its preflight
// pings: retrieval's in every pass, then the passes' own. A run given a
// plan (--plan) makes one implement pass; one given a meta plan
// (--meta-plan) no meta-plan pass.
func Stages(plan, metaPlan bool) []string {
	out := slices.Clone(retrieval.Stages)
	switch {
	case plan:
		return append(out, schema.StageImplement)
	case !metaPlan:
		out = append(out, schema.StageMetaPlan)
	}
	return append(out, schema.StagePartPlan, schema.StageImplement, schema.StageAdjustment)
}
