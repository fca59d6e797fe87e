package kb

import (
	"context"
	"database/sql/driver"
)

var trainingExampleColumns = []string{"id", "dataset", "version", "stage", "source", "split", "label", "repo_path",
	"commit", "target_id", "messages", "prompt_tokens", "completion_tokens", "created_at"}

// AppendTrainingExamples appends examples through the writer's Appender,
// in its current transaction, anti-joined on (dataset, version, id).
func AppendTrainingExamples(ctx context.Context, w Writer, examples []TrainingExample) error {
	rows := make([][]driver.Value, len(examples))
	for i, e := range examples {
		msgs := make([]map[string]any, len(e.Messages))
		for j, m := range e.Messages {
			msgs[j] = map[string]any{"role": m.Role, "content": m.Content}
		}
		var commit any
		if e.Commit != "" {
			commit = e.Commit
		}
		rows[i] = []driver.Value{e.ID, e.Dataset, e.Version, e.Stage, e.Source, e.Split, e.Label, e.RepoPath,
			commit, e.TargetID, msgs, e.PromptTokens, e.CompletionTokens, e.CreatedAt}
	}
	_, err := w.AppendNew(ctx, "training_examples", trainingExampleColumns, []string{"dataset", "version", "id"}, rows)
	return err
}
