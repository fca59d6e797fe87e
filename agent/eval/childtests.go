package eval

import (
	"context"
	"time"

	"github.com/cra-dev/cra/agent/orchestrator"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/kb"
)

// childTests is whether the commit's own tests pass: the yardstick an
// implement pass's tests are judged against (a change whose real commit
// fails its tests is judged by reproduction instead). Run once per
// repository, commit and test command, in a worktree of the commit, and
// kept in eval_commit_tests for every later eval.
func childTests(ctx context.Context, home string, raw *kb.Lease, t Task, tc config.Testing) (bool, error) {
	id := orchestrator.ScratchPrefix + "evalchild-" + t.Commit[:16]
	orchestrator.DiscardWorktree(ctx, home, t.Repo, id)
	wt, err := orchestrator.AddWorktree(ctx, home, t.Repo, t.Commit, id)
	if err != nil {
		return false, err
	}
	defer orchestrator.DiscardWorktree(context.WithoutCancel(ctx), home, t.Repo, id)
	rep, err := orchestrator.Validate(ctx, wt.Dir, tc)
	if err != nil {
		return false, err
	}
	passed := rep.Passed()
	return passed, raw.Write(ctx, func(w kb.Writer) error {
		_, err := w.Conn.ExecContext(ctx, `INSERT INTO eval_commit_tests (repo_path, commit, test_command, success, output_tail, ran_at)
			SELECT ?, ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM eval_commit_tests WHERE repo_path = ? AND commit = ? AND test_command = ?)`,
			t.Repo, t.Commit, tc.TestCommand, passed, orchestrator.Tail(rep.Test.Output, 4<<10), time.Now().UTC(), t.Repo, t.Commit, tc.TestCommand)
		return err
	})
}

// judgeByReproduction is the step verdict of a repository without a test
// command: the step passes when its edits applied, and the run is judged
// afterwards by reproducing its commit (its validation_results row says
// so).
func judgeByReproduction(context.Context, string) (orchestrator.Report, error) {
	return orchestrator.Report{Test: orchestrator.Result{Kind: orchestrator.KindTest, Command: "(none)", Passed: true,
		Output: "no test command for this repository: cra eval judges the run by reproducing its commit"}}, nil
}

// commitTests loads eval_commit_tests: repository, commit and test
// command (joined by NUL) → whether the commit passed.
func commitTests(ctx context.Context, q kb.Querier) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT repo_path || chr(0) || commit || chr(0) || test_command, bool_and(success) FROM eval_commit_tests GROUP BY 1`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var k string
		var ok bool
		if err := rows.Scan(&k, &ok); err != nil {
			return nil, err
		}
		out[k] = ok
	}
	return out, rows.Err()
}
