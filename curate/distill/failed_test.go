package distill

import (
	"context"
	"github.com/cra-dev/cra/internal/gittest"
	"strings"
	"testing"

	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// --from failed-runs: the teacher gets the logged prompts of the student's
// calls in failed runs only; a call of an eval run is held to the
// ground truth of the task the eval replayed, another is checked by
// parsing; teacher and student meet in distill_pairs.
func TestDistillFromFailedRuns(t *testing.T) {
	t.Setenv(teacherKeyEnv, teacherKey)
	repo := gittest.PythonHistory(t)
	// One call a window: the same prompt, logged by two runs, comes in
	// two windows and is paid once all the same, live or in batches.
	smallWindows(t, 1)
	for _, batch := range []bool{false, true} {
		t.Run(map[bool]string{false: "live", true: "batch"}[batch], func(t *testing.T) { testFailedRuns(t, repo, batch) })
	}
}

func testFailedRuns(t *testing.T, repo *gittest.Repo, batch bool) {
	home := minedHome(t, repo)
	ts := newTeacher(t, home, always)
	opts := distillOptions(ts.Server)
	norm, _ := opts.normalize()
	items := allItems(t, home, norm)
	var scope, implement *item
	for _, it := range items {
		if it.task.ID == items[0].task.ID {
			switch it.stage {
			case schema.StageScope:
				scope = it
			case schema.StageImplement:
				implement = it
			}
		}
	}
	if scope == nil || implement == nil {
		t.Fatal("no task with scope and implement targets")
	}
	raw, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := raw.DB.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, run := range []struct {
		id      string
		success bool
	}{{"solve-1", false}, {"eval-1", false}, {"good-1", true}} {
		exec(`INSERT INTO task_runs (task_id, repo_path, mode, execute_model, context_window, reserved_tokens, stages, success, timestamp)
			VALUES (?, ?, 'plan', 'student', 32768, 8192, [], ?, now())`, run.id, scope.repo, run.success)
		for _, it := range []*item{scope, implement} {
			exec(`INSERT INTO retrieval_llm_calls (task_id, call_type, stage_name, model, provider, system_prompt, prompt, response, latency_ms, timestamp)
				VALUES (?, ?, ?, 'student', 'ollama', ?, ?, 'student answer of ' || ?, 5, now())`, run.id, it.stage, it.stage, it.system, it.user, run.id)
		}
	}
	// Rows that are not student calls of these stages.
	exec(`INSERT INTO retrieval_llm_calls (task_id, call_type, stage_name, model, prompt, latency_ms, timestamp)
		VALUES ('solve-1', 'assembly', 'plan', 'none', 'context', 0, now())`)
	exec(`INSERT INTO eval_tasks (eval_run_id, task_id, repo_path, task_run_id, status, finished_at)
		SELECT 1, ?, repo_path, id, 'scored', now() FROM task_runs WHERE task_id = 'eval-1'`, scope.task.ID)
	raw.Close()

	opts.From = FromFailedRuns
	opts.Stages = []string{schema.StageScope, schema.StageImplement}
	opts.Batch = batch
	sum := distill(t, home, opts)
	if sum.Items != 4 {
		t.Fatalf("%d items, want the 4 calls of the two failed runs", sum.Items)
	}
	// Two runs logged the same prompts: two requests, paid once each.
	if len(ts.Charges()) != 2 || sum.Totals.Calls != 2 {
		t.Errorf("%d requests for 2 distinct prompts (summary %+v)", len(ts.Charges()), sum.Totals)
	}
	for k, n := range ts.Charges() {
		if n != 1 {
			t.Errorf("request %.12s charged %d times", k, n)
		}
	}
	got := rawRows(t, home, `SELECT c.task_id, o.stage, o.checked, o.verified, o.task_id IS NOT NULL
		FROM distill_outcomes o JOIN retrieval_llm_calls c ON c.id = o.student_call_id ORDER BY 1, 2`)
	want := []string{
		"eval-1\timplement\tground_truth\ttrue\ttrue",
		"eval-1\tscope\tground_truth\ttrue\ttrue",
		"solve-1\timplement\tparse\ttrue\tfalse",
		"solve-1\tscope\tparse\ttrue\tfalse",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("outcomes:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	pairs := rawRows(t, home, `SELECT student_task_id, stage, student_response, teacher_response = ? OR teacher_response = ?
		FROM distill_pairs ORDER BY 1, 2`, ts.truth[scope.system+"\x00"+scope.user], ts.truth[implement.system+"\x00"+implement.user])
	if len(pairs) != 4 || !strings.HasSuffix(pairs[0], "student answer of eval-1\ttrue") {
		t.Errorf("distill_pairs: %v", pairs)
	}
}
