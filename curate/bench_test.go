package curate

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// generate writes n synthetic tasks (4n targets) with SQL: distinct tasks,
// a few candidates and symbols each, a 2 KB file to edit.
func generate(b testing.TB, home string, n int) { generateSized(b, home, n, 60) }

// generateSized is generate with files to edit of about lines x 32 bytes.
func generateSized(b testing.TB, home string, n, lines int) {
	raw, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{Write: true})
	if err != nil {
		b.Fatal(err)
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
			SELECT id || '-scope', id, repo_path, commit, 'scope', json_object('candidates', [
				json_object('path', 'pkg/mod' || commit || '.py', 'tier', 1, 'rank', 1, 'reason', 'defines handler', 'relevant', true, 'symbols', ['handler', 'helper']),
				json_object('path', 'pkg/other' || commit || '.py', 'tier', 2, 'rank', 1, 'reason', 'imports it', 'relevant', false, 'symbols', ['other'])],
				'touched', ['pkg/mod' || commit || '.py'], 'created', [], 'reached', true), now() FROM synthetic_tasks`,
		`INSERT INTO synthetic_targets (id, task_id, repo_path, commit, stage, target, created_at)
			SELECT id || '-precision', id, repo_path, commit, 'precision', json_object('symbols', [
				json_object('file', 'pkg/mod' || commit || '.py', 'name', 'handler', 'qualified_name', 'handler' || commit, 'kind', 'function',
					'start_line', 1, 'end_line', 9, 'signature', 'def handler' || commit || '(x):', 'tier', 'primary'),
				json_object('file', 'pkg/mod' || commit || '.py', 'name', 'helper', 'qualified_name', 'helper', 'kind', 'function',
					'start_line', 10, 'end_line', 12, 'signature', 'def helper(y):', 'tier', 'excluded')]), now() FROM synthetic_tasks`,
		`INSERT INTO synthetic_targets (id, task_id, repo_path, commit, stage, target, created_at)
			SELECT id || '-plan', id, repo_path, commit, 'plan', json_object('task_summary', task, 'affected_files', [
				json_object('path', 'pkg/mod' || commit || '.py', 'role', 'modify', 'changes', [json_object('symbol', 'handler' || commit,
					'action', 'modify', 'description', 'modify function handler' || commit, 'depends_on', []::VARCHAR[], 'depended_by', []::VARCHAR[])])],
				'execution_order', ['pkg/mod' || commit || '.py'], 'rationale', ''), now() FROM synthetic_tasks`,
		`INSERT INTO synthetic_targets (id, task_id, repo_path, commit, stage, target, created_at)
			SELECT id || '-implement', id, repo_path, commit, 'implement', json_object(
				'files', [json_object('path', 'pkg/mod' || commit || '.py', 'content', 'def handler' || commit || '(x):\n' || repeat('    x = x + 1  # step ' || commit || '\n', %d) || '    return x\n')],
				'edits', [json_object('file', 'pkg/mod' || commit || '.py', 'search', '    return x\n', 'replace', '    return x * 2\n')]), now() FROM synthetic_tasks`,
	} {
		if strings.Contains(q, "%d") {
			q = fmt.Sprintf(q, lines)
		}
		if _, err := raw.DB.Exec(q); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCurate(b *testing.B) {
	const tasks = 25000 // 100,000 targets
	home := storetest.Home(b)
	generate(b, home, tasks)
	opts := testOptions("bench")
	opts.Curate.PerRepoCap = 0
	opts.Jobs = 0
	var sum *Summary
	storetest.ResetPeakRSS()
	start := storetest.PeakRSS()
	b.ResetTimer()
	for range b.N {
		var err error
		if sum, err = Curate(context.Background(), home, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(storetest.PeakRSS())/(1<<20), "peak_MB")
	b.ReportMetric(float64(start)/(1<<20), "start_MB")
	kept := 0
	for _, s := range sum.Examples {
		kept += s[kb.SplitTrain] + s[kb.SplitValidation]
	}
	b.ReportMetric(float64(4*tasks)/(b.Elapsed().Seconds()/float64(b.N)), "targets/s")
	b.ReportMetric(float64(kept), "kept")
}

func BenchmarkMinHash(b *testing.B) {
	mh := newMinHasher(16, 8)
	text := distinctText(1) + " " + distinctText(2) + " " + distinctText(3) + " " + distinctText(4)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		mh.signature(text)
	}
}
