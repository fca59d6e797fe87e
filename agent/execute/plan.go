package execute

import (
	"context"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/kb/schema"
)

// Plan is the plan pass: the model plans the task from the files it may
// read (the plan prompt curate trains on), and the plan is checked against
// the repository (schema.PlanArtifact.Check: files to change exist, the
// order covers them, dependencies name changes of the plan). A plan that
// does not parse or check is asked for once more with the reason; twice is
// a *retrieval.UnusableAnswerError.
func Plan(ctx context.Context, client llm.Client, taskID string, in prompt.PlanInput, exists func(path string) bool) (schema.PlanArtifact, error) {
	parse := func(text string) (schema.PlanArtifact, error) {
		p, err := prompt.ParsePlan(text)
		if err == nil {
			err = p.Check(exists)
		}
		return p, err
	}
	return retrieval.Ask(ctx, client, taskID, schema.StagePlan, prompt.PlanPrompt(prompt.PlanAtomic, in), parse)
}
