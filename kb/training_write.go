package kb

import (
	"context"
	"database/sql/driver"
)

var trainingExampleColumns = []string{"id", "dataset", "stage", "source", "split", "label", "repo_path",
	"commit", "target_id", "messages", "prompt_tokens", "completion_tokens", "created_at"}

// AppendTrainingExamples appends examples through the writer's Appender,
// in its current transaction.
func AppendTrainingExamples(w Writer, examples []TrainingExample) error {
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
		rows[i] = []driver.Value{e.ID, e.Dataset, e.Stage, e.Source, e.Split, e.Label, e.RepoPath,
			commit, e.TargetID, msgs, e.PromptTokens, e.CompletionTokens, e.CreatedAt}
	}
	return w.AppendAll("training_examples", trainingExampleColumns, rows)
}

// ReplaceDataset makes the examples written under pending the dataset
// name's, dropping its previous examples, in the writer's current
// transaction.
func ReplaceDataset(ctx context.Context, w Writer, name, pending string) error {
	if _, err := w.Conn.ExecContext(ctx, `DELETE FROM training_examples WHERE dataset = ?`, name); err != nil {
		return err
	}
	_, err := w.Conn.ExecContext(ctx, `UPDATE training_examples SET dataset = ? WHERE dataset = ?`, name, pending)
	return err
}
