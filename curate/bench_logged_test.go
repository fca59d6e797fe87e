package curate

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// callsPerRun is what generateLogged writes per solve run: five passes
// (meta plan, part plan, a failed or passing step, its retry, an
// adjustment) of four calls each (task analysis, scope, precision, the
// pass's own).
const callsPerRun = 20

// generateLogged writes runs solve runs with SQL: their task runs,
// orchestrator rows, calls (prompts of about 1 KB), attempts and tests.
func generateLogged(t testing.TB, home string, runs int) {
	raw, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	passes := `(VALUES (0, 'meta_plan', ':meta_plan', NULL, 'meta_plan'), (1, 'part_plan', ':part_plan:p1', NULL, 'part_plan'),
		(2, 'step_implement', ':impl:p1:s1', 's1', 'implement'), (3, 'step_implement', ':impl:p1:s1:retry_1', 's1', 'implement'),
		(4, 'adjustment', ':adjust:p1:after_s1', 's1', 'adjustment')) p(k, pass_type, suffix, step, call_type)`
	for _, q := range []string{
		fmt.Sprintf(`CREATE TEMP TABLE g AS SELECT i, 'solve-' || lpad(i::VARCHAR, 8, '0') AS run, '/repo' || (i %% 20) AS repo,
			'pkg/m' || (i %% 97) || '.py' AS file FROM range(%d) r(i)`, runs),
		`INSERT INTO task_runs (id, task_id, repo_path, mode, execute_model, context_window, reserved_tokens, stages, success, final_diff, timestamp)
			SELECT i * 6 + 1, run, repo, 'solve', 'c', 32768, 8192, ['meta_plan'], true,
				'diff --git a/' || file || ' b/' || file || E'\n--- a/' || file || E'\n+++ b/' || file || E'\n', now() FROM g`,
		`INSERT INTO task_runs (id, task_id, repo_path, mode, execute_model, context_window, reserved_tokens, stages, success, timestamp)
			SELECT i * 6 + 2 + k, run || suffix, repo, CASE WHEN call_type = 'implement' THEN 'implement' ELSE call_type END, 'c', 32768, 8192,
				['scope'], NOT (k = 2 AND i % 3 = 0), now() FROM g, ` + passes,
		`INSERT INTO orchestrator_runs (id, task_id, repo_path, task_description, total_parts, total_steps, parts_completed, steps_completed, status, timestamp)
			SELECT i + 1, run, repo, 'Fix handler ' || i, 1, 1, 1, 1, CASE WHEN i % 10 < 7 THEN 'complete' ELSE 'partial' END, now() FROM g`,
		`INSERT INTO orchestrator_passes (orchestrator_run_id, task_run_id, pass_type, part_id, step_id, sequence_order, timestamp)
			SELECT i + 1, i * 6 + 2 + k, pass_type, 'p1', step, k + 1, now() FROM g, ` + passes,
		`INSERT INTO retrieval_llm_calls (id, task_id, call_type, stage_name, model, system_prompt, prompt, response, latency_ms, timestamp)
			SELECT i * 20 + k * 4 + c, run || suffix, t, t, 'm', 'You ' || t || ' for a code change.',
				E'Task:\nFix the handler ' || i || ' when module ' || (i * 7919 % 1000) || ' sees input ' || (i * 104729 % 977) ||
				E'\n\nFiles:\n' || file || E'\n' || repeat('    x = x + ' || (i * 31 % 1000) || E'  # context\n', 40),
				CASE t WHEN 'scope' THEN '{"relevant": ["' || file || '"]}'
					WHEN 'precision' THEN '{"symbols": {"' || file || ':handler": "primary"}}'
					WHEN 'task_analysis' THEN '{"summary": "fix ' || i || '", "files": ["' || file || '"], "symbols": [], "keywords": []}'
					WHEN 'meta_plan' THEN '{"task_summary": "fix ' || i || '", "parts": [{"id": "p1", "description": "fix ' || i || '", "affected_files": ["' || file || '"], "depends_on": []}], "rationale": ""}'
					WHEN 'part_plan' THEN '{"part_id": "p1", "task_summary": "", "steps": [{"id": "s1", "description": "fix ' || i || '", "target_files": ["' || file || '"], "target_symbols": [], "depends_on": []}, {"id": "s2", "description": "test ' || i || '", "target_files": ["' || file || '"], "target_symbols": [], "depends_on": []}], "rationale": ""}'
					WHEN 'adjustment' THEN '{"revised_steps": [{"id": "s2", "description": "test it well ' || i || '", "target_files": ["' || file || '"], "target_symbols": [], "depends_on": []}], "rationale": "", "changes_made": []}'
					ELSE E'<edit file="' || file || E'">\n<search>\n    return x\n</search>\n<replacement>\n    return x * ' || (i % 7 + k) || E'\n</replacement>\n</edit>' END,
				10, now()
			FROM g, ` + passes + `, (SELECT c, CASE c WHEN 0 THEN 'task_analysis' WHEN 1 THEN 'scope' WHEN 2 THEN 'precision' END AS tc FROM range(4) x(c)) cc,
				LATERAL (SELECT coalesce(cc.tc, p.call_type) AS t) tt`,
		`INSERT INTO run_attempts (id, task_run_id, attempt, latency_ms, raw_response, patch_applied, timestamp)
			SELECT i * 2 + k - 2, i * 6 + 2 + k, k - 1, 10, '', true, now() FROM g, ` + passes + ` WHERE k IN (2, 3)`,
		`INSERT INTO validation_results (attempt_id, success, failing_tests)
			SELECT i * 2 + k - 2, NOT (k = 2 AND i % 3 = 0), CASE WHEN k = 2 AND i % 3 = 0 THEN ['tests.test_m.test_handler'] ELSE [] END
			FROM g, ` + passes + ` WHERE k IN (2, 3)`,
		`CHECKPOINT`,
	} {
		if _, err := raw.DB.Exec(q); err != nil {
			t.Fatalf("%v\n%.200s", err, q)
		}
	}
}

// BenchmarkCurateLogged runs curate-data over CRA_BENCH_CALLS (default
// 1,000,000) generated logged calls in a child process, and reports its
// wall time and peak RSS beside a baseline: DuckDB reading every call's
// text once, in this process.
func BenchmarkCurateLogged(b *testing.B) {
	calls := 1_000_000
	if s := os.Getenv("CRA_BENCH_CALLS"); s != "" {
		calls, _ = strconv.Atoi(s)
	}
	home := storetest.Home(b)
	generateLogged(b, home, calls/callsPerRun)
	raw, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	var n int64
	if err := raw.DB.QueryRow(`SELECT sum(length(system_prompt) + length(prompt) + length(response)) FROM retrieval_llm_calls`).Scan(&n); err != nil {
		b.Fatal(err)
	}
	base := time.Since(start)
	raw.Close()
	b.ResetTimer()
	for i := range b.N {
		rssFile := filepath.Join(b.TempDir(), "rss")
		cmd := exec.Command(os.Args[0], "-test.run", "^TestCurateLoggedChild$")
		cmd.Env = append(os.Environ(), "CRA_BENCH_CHILD_HOME="+home, "CRA_BENCH_CHILD_NAME=bench"+strconv.Itoa(i), "CRA_BENCH_CHILD_RSS="+rssFile)
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
		took := time.Since(start)
		// The child's own high-water mark, as it reads it (its rusage
		// would count this process's, which holds the generator's memory:
		// Linux carries the old high-water mark across the exec).
		rss, err := os.ReadFile(rssFile)
		if err != nil {
			b.Fatal(err)
		}
		peak, _ := strconv.ParseInt(string(rss), 10, 64)
		b.ReportMetric(took.Seconds(), "s/run")
		b.ReportMetric(float64(peak)/(1<<20), "peak_MB")
		b.ReportMetric(took.Seconds()/base.Seconds(), "x-read-all-text")
		b.ReportMetric(float64(calls)/took.Seconds(), "calls/s")
	}
}

// TestCurateLoggedChild is BenchmarkCurateLogged's child: curate-data
// over the home it is given (skipped otherwise).
func TestCurateLoggedChild(t *testing.T) {
	home := os.Getenv("CRA_BENCH_CHILD_HOME")
	if home == "" {
		t.Skip("run by BenchmarkCurateLogged")
	}
	opts := testOptions(os.Getenv("CRA_BENCH_CHILD_NAME"))
	opts.Sources, opts.Kinds, opts.Jobs = []string{SourceLogged}, kb.ExampleKinds, 0
	opts.Curate.PerRepoCap = 0
	opts.MemoryLimit = DefaultMemoryLimit // as the command line runs it
	sum, err := Curate(context.Background(), home, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d runs: %v, dropped %v", sum.Runs, sum.Kinds, sum.Dropped)
	if p := os.Getenv("CRA_BENCH_CHILD_RSS"); p != "" {
		if err := os.WriteFile(p, []byte(strconv.FormatInt(storetest.PeakRSS(), 10)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The generated store holds what the benchmark says: every kind of row
// comes out of it.
func TestGeneratedLoggedStore(t *testing.T) {
	home := storetest.Home(t)
	generateLogged(t, home, 30)
	opts := testOptions("gen")
	opts.Sources, opts.Kinds = []string{SourceLogged}, kb.ExampleKinds
	opts.Curate.NearDupThreshold = 1 // the generated runs look alike
	sum := run(t, home, opts)
	for _, s := range []string{SignalImplementTests, SignalCompleteRun, SignalSolveKept, SignalCoderRetry, SignalAdjustment} {
		if sum.Signals[s] == 0 {
			t.Errorf("no %s rows: %v", s, sum.Signals)
		}
	}
	if got := storetest.Rows(t, home, kb.Raw, `SELECT count(*) FROM retrieval_llm_calls`); got[0] != strconv.Itoa(30*callsPerRun) {
		t.Errorf("calls %v", got)
	}
}
