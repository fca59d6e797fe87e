package notebooks

import (
	"context"
	"strings"
	"testing"
)

// TestRunsTraceTracesTheNewestRun checks runs_trace.sql picks the newest
// top-level run, not its newest sub-pass: a run's row is stamped when it
// starts, so its sub-passes (here an adjustment an hour later) are newer
// than it, and picking the newest row of all would trace one sub-pass alone.
func TestRunsTraceTracesTheNewestRun(t *testing.T) {
	a := fixture(t)
	if _, err := a.Conn.ExecContext(context.Background(), `
		INSERT INTO raw.task_runs (task_id, repo_path, mode, execute_model, context_window, reserved_tokens, stages, success, timestamp)
			VALUES ('eval3-abc', '/r', 'solve', 'm', 32768, 8192, ['scope'], true, now() + INTERVAL 1 HOUR),
			       ('eval3-abc:meta_plan', '/r', 'meta_plan', 'm', 32768, 8192, [], true, now() + INTERVAL 2 HOUR),
			       ('eval3-abc:adjust:p1:after_s1', '/r', 'adjust', 'm', 32768, 8192, [], true, now() + INTERVAL 3 HOUR);
		INSERT INTO raw.retrieval_llm_calls (task_id, call_type, model, prompt, latency_ms, timestamp)
			VALUES ('eval3-abc', 'scope', 'm', 'p', 10, now() + INTERVAL 1 HOUR),
			       ('eval3-abc:adjust:p1:after_s1', 'adjust', 'm', 'p', 10, now() + INTERVAL 3 HOUR);`); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		intro string // the comment that introduces the query
		want  []string
	}{
		{"The run and its sub-runs.", []string{"eval3-abc", "eval3-abc:meta_plan", "eval3-abc:adjust:p1:after_s1"}},
		{"Every model call, in order", []string{"eval3-abc", "eval3-abc:adjust:p1:after_s1"}},
	} {
		var got []string
		for _, row := range query(t, a, statement(t, "runs_trace.sql", c.intro)) {
			for _, f := range strings.Fields(row) {
				if strings.HasPrefix(f, "eval3-abc") || f == "t" || strings.HasPrefix(f, "t:") {
					got = append(got, f)
					break
				}
			}
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%q traced %v, want %v", c.intro, got, c.want)
		}
	}
}
