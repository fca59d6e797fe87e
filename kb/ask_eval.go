package kb

import (
	"context"
	"fmt"

	"github.com/cra-dev/cra/kb/schema"
)

// AskQuestion is a question cra ask --eval asked (raw.ask_questions): what
// it was generated from and the answer it should get.
type AskQuestion struct {
	EvalRunID       int64    `json:"eval_run_id"`
	ID              string   `json:"question_id"` // ask/<kind>/<hash>: eval_tasks.task_id
	Kind            string   `json:"kind"`
	Mode            string   `json:"mode"`
	Repo            string   `json:"repo_path"`
	Question        string   `json:"question"`
	ExpectedFiles   []string `json:"expected_files"`
	ExpectedSymbols []string `json:"expected_symbols"`
	ExpectedLines   []string `json:"expected_lines"` // path:start-end of each expected symbol
	Rev             string   `json:"rev,omitempty"`  // "" for the indexed revision
	FixCommit       string   `json:"fix_commit,omitempty"`
}

// InsertAskQuestion writes q; it runs inside the transaction that writes
// the question's eval_tasks row, so the two exist together or not at all.
func InsertAskQuestion(ctx context.Context, w Writer, q AskQuestion) error {
	_, err := w.Conn.ExecContext(ctx, `INSERT INTO ask_questions (eval_run_id, question_id, kind, mode, repo_path, question,
			expected_files, expected_symbols, expected_lines, rev, fix_commit)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, q.EvalRunID, q.ID, q.Kind, q.Mode, q.Repo, q.Question,
		nonNil(q.ExpectedFiles), nonNil(q.ExpectedSymbols), nonNil(q.ExpectedLines), nullString(q.Rev), nullString(q.FixCommit))
	if err != nil {
		return fmt.Errorf("kb: record ask question %s: %w", q.ID, err)
	}
	return nil
}

// AskQuestions lists the questions an ask eval asked, by id.
func AskQuestions(ctx context.Context, q Querier, runID int64) ([]AskQuestion, error) {
	out, err := queryList(ctx, q, func(a *AskQuestion) []any {
		return []any{&a.EvalRunID, &a.ID, &a.Kind, &a.Mode, &a.Repo, &a.Question, stringList{&a.ExpectedFiles},
			stringList{&a.ExpectedSymbols}, stringList{&a.ExpectedLines}, &a.Rev, &a.FixCommit}
	}, `SELECT eval_run_id, question_id, kind, mode, repo_path, question, expected_files, expected_symbols, expected_lines,
			coalesce(rev, ''), coalesce(fix_commit, '')
		FROM ask_questions WHERE eval_run_id = ? ORDER BY question_id`, runID)
	if err != nil {
		return nil, fmt.Errorf("kb: read the questions of ask eval %d: %w", runID, err)
	}
	return out, nil
}

// askEvalRun says an eval_runs row r is cra ask --eval's: its scored
// stages are cra ask's. Failure attribution (train-plan) reads cra eval's
// runs only: an ask eval scores no pipeline stage and has no end-to-end
// outcome.
const askEvalRun = `list_contains(r.stages, '` + schema.StageAskClassify + `')`

// AskEvalNames lists the names of cra ask --eval's runs, so train-plan can
// say why it does not read one named with --eval.
func (l *LogAnalysis) AskEvalNames(ctx context.Context) ([]string, error) {
	return l.strings(ctx, `SELECT DISTINCT name FROM eval_runs r WHERE `+askEvalRun+` ORDER BY 1`)
}
