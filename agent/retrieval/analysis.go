package retrieval

import (
	"context"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/kb/schema"
)

// AnalyzeTask asks the model what the task names (files, symbols, keywords)
// and merges that with the task's own mentions into the seeds of
// expansion (Seeds). An answer that stays unusable after a second ask is an
// UnusableAnswerError; the caller may go on with the mentions alone.
func AnalyzeTask(ctx context.Context, client llm.Client, taskID, task string, g Graph) (prompt.TaskAnalysis, []Mention, error) {
	a, err := Ask(ctx, client, taskID, schema.StageTaskAnalysis, prompt.TaskAnalysisPrompt(task), prompt.ParseTaskAnalysis)
	if err != nil {
		return a, nil, err
	}
	return a, Seeds(task, a, g), nil
}
