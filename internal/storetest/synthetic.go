package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// SyntheticTasks writes n synthetic tasks (4n targets: scope, precision,
// plan, implement) into home's raw store with SQL, as bootstrap would
// leave them: distinct tasks over 20 repositories, a few candidates and
// symbols each, a 2 KB file to edit. Benchmarks and kill tests use it for
// a store of any size in seconds.
func SyntheticTasks(t testing.TB, home string, n int) { SyntheticTasksSized(t, home, n, 60) }

// SyntheticTasksSized is SyntheticTasks with files to edit of about
// lines x 32 bytes (400 KB files are 12,500 lines).
func SyntheticTasksSized(t testing.TB, home string, n, lines int) {
	t.Helper()
	raw, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{Write: true, Wait: lockWait})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, q := range []string{
		fmt.Sprintf(`INSERT INTO synthetic_tasks (id, run_id, repo_path, commit, parent, author, committed_at, message, task,
			files_changed, insertions, deletions, created_at)
			SELECT 't' || i, 1, '/repo' || (i %% 20), 'c' || i, 'p', 'A <a@b>', now(),
				'Fix the handler ' || i || ' when module ' || (i * 7919 %% 1000) || ' sees input ' || (i * 104729 %% 977),
				'Fix the handler ' || i || ' when module ' || (i * 7919 %% 1000) || ' sees input ' || (i * 104729 %% 977),
				1, 1, 1, now() FROM range(%d) r(i)`, n),
		`INSERT INTO synthetic_targets (id, task_id, repo_path, commit, stage, target, created_at)
			SELECT id || '-scope', id, repo_path, commit, '` + schema.StageScope + `', json_object('candidates', [
				json_object('path', 'pkg/mod' || commit || '.py', 'tier', 1, 'rank', 1, 'reason', 'defines handler', 'relevant', true, 'symbols', ['handler', 'helper']),
				json_object('path', 'pkg/other' || commit || '.py', 'tier', 2, 'rank', 1, 'reason', 'imports it', 'relevant', false, 'symbols', ['other'])],
				'touched', ['pkg/mod' || commit || '.py'], 'created', [], 'reached', true), now() FROM synthetic_tasks`,
		`INSERT INTO synthetic_targets (id, task_id, repo_path, commit, stage, target, created_at)
			SELECT id || '-precision', id, repo_path, commit, '` + schema.StagePrecision + `', json_object('symbols', [
				json_object('file', 'pkg/mod' || commit || '.py', 'name', 'handler', 'qualified_name', 'handler' || commit, 'kind', 'function',
					'start_line', 1, 'end_line', 9, 'signature', 'def handler' || commit || '(x):', 'tier', 'primary'),
				json_object('file', 'pkg/mod' || commit || '.py', 'name', 'helper', 'qualified_name', 'helper', 'kind', 'function',
					'start_line', 10, 'end_line', 12, 'signature', 'def helper(y):', 'tier', 'excluded')]), now() FROM synthetic_tasks`,
		`INSERT INTO synthetic_targets (id, task_id, repo_path, commit, stage, target, created_at)
			SELECT id || '-plan', id, repo_path, commit, '` + schema.StagePlan + `', json_object('task_summary', task, 'affected_files', [
				json_object('path', 'pkg/mod' || commit || '.py', 'role', 'modify', 'changes', [json_object('symbol', 'handler' || commit,
					'action', 'modify', 'description', 'modify function handler' || commit, 'depends_on', []::VARCHAR[], 'depended_by', []::VARCHAR[])])],
				'execution_order', ['pkg/mod' || commit || '.py'], 'rationale', ''), now() FROM synthetic_tasks`,
		`INSERT INTO synthetic_targets (id, task_id, repo_path, commit, stage, target, created_at)
			SELECT id || '-implement', id, repo_path, commit, '` + schema.StageImplement + `', json_object(
				'files', [json_object('path', 'pkg/mod' || commit || '.py', 'content', 'def handler' || commit || '(x):\n' || repeat('    x = x + 1  # step ' || commit || '\n', %d) || '    return x\n')],
				'edits', [json_object('file', 'pkg/mod' || commit || '.py', 'search', '    return x\n', 'replace', '    return x * 2\n')]), now() FROM synthetic_tasks`,
	} {
		if strings.Contains(q, "%d") {
			q = fmt.Sprintf(q, lines)
		}
		if _, err := raw.DB.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}
