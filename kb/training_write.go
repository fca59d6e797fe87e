package kb

import (
	"context"
	"database/sql/driver"
	"encoding/json"
)

var trainingExampleColumns = []string{"id", "dataset", "version", "stage", "source", "split", "label", "repo_path",
	"commit", "target_id", "messages", "prompt_tokens", "completion_tokens", "created_at",
	"kind", "chosen", "rejected", "signal", "evidence", "task_id"}

// stagingTable holds the examples of versions being built (raw 0013): no
// reader of training_examples sees them until RegisterDatasetVersion moves
// them there.
const stagingTable = "training_examples_staging"

// StageTrainingExamples appends examples of a version being built to the
// staging table through the writer's Appender, in its current
// transaction, anti-joined on (dataset, version, id). They become rows of
// training_examples, visible, only when RegisterDatasetVersion registers
// their version.
func StageTrainingExamples(ctx context.Context, w Writer, examples []TrainingExample) error {
	rows := make([][]driver.Value, len(examples))
	for i, e := range examples {
		kind := e.Kind
		if kind == "" {
			kind = KindSFT
		}
		rows[i] = []driver.Value{e.ID, e.Dataset, e.Version, e.Stage, e.Source, e.Split, e.Label, e.RepoPath,
			orNull(e.Commit), e.TargetID, messageValues(e.Messages), e.PromptTokens, e.CompletionTokens, e.CreatedAt,
			kind, messageValues(e.Chosen), messageValues(e.Rejected), orNull(e.Signal), jsonOrNull(e.Evidence), orNull(e.TaskID)}
	}
	_, err := w.AppendNew(ctx, stagingTable, trainingExampleColumns, []string{"dataset", "version", "id"}, rows)
	return err
}

// messageValues is msgs as the Appender takes a STRUCT list; nil for none
// (NULL).
func messageValues(msgs []Message) any {
	if msgs == nil {
		return nil
	}
	out := make([]map[string]any, len(msgs))
	for j, m := range msgs {
		out[j] = map[string]any{"role": m.Role, "content": m.Content}
	}
	return out
}

// orNull is s, or NULL when empty.
func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// jsonOrNull is a JSON document as the Appender stores it in a JSON column
// (a Go string would go in as a JSON string), or NULL when empty.
func jsonOrNull(doc string) any {
	if doc == "" {
		return nil
	}
	return json.RawMessage(doc)
}
