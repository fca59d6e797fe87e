package eval

import (
	"context"
	"fmt"

	"github.com/cra-dev/cra/kb"
)

// insertQuestion writes q's raw.ask_questions row: what it was generated
// from and the answer it should get. It runs inside the transaction that
// writes the question's eval_tasks row, so the two exist together or not
// at all.
func insertQuestion(ctx context.Context, w kb.Writer, runID int64, q Question) error {
	symbols, lines := []string{}, []string{}
	for _, s := range q.Symbols {
		symbols, lines = append(symbols, s.Name), append(lines, s.Cite())
	}
	_, err := w.Conn.ExecContext(ctx, `INSERT INTO ask_questions (eval_run_id, question_id, kind, mode, repo_path, question,
			expected_files, expected_symbols, expected_lines, rev, fix_commit)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, runID, q.ID, q.Kind, string(q.Mode), q.Repo, q.Text,
		nonNil(q.Files), symbols, lines, nullIfEmpty(q.Rev), nullIfEmpty(q.Commit))
	if err != nil {
		return fmt.Errorf("record ask question %s: %w", q.ID, err)
	}
	return nil
}
