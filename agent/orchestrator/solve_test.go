package orchestrator

import (
	"slices"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/kb/schema"
)

// The solve loop's rules, each through Solve on one shared fixture: a
// fake model over real HTTP, a real repository and test command, the
// rows a real raw store holds.
func TestSolveLoop(t *testing.T) {
	t.Parallel()
	f := newSolveFixture(t)
	t.Run("parts in dependency order, steps in plan order", func(t *testing.T) { testStepOrder(t, f) })
	t.Run("a failing step retried with its test output", func(t *testing.T) { testRetry(t, f) })
	t.Run("the adjustment replaces the remaining steps", func(t *testing.T) { testAdjustment(t, f) })
	t.Run("a failed step recorded, the run goes on", func(t *testing.T) { testFailedStep(t, f) })
}

// Parts run in dependency order, whatever order the meta plan lists them
// in, and a part's steps in its plan's order: the commits on the run's
// branch and the passes' rows follow that order.
func testStepOrder(t *testing.T, f *solveFixture) {
	f.use(t, &solveScript{
		meta: schema.MetaPlan{Parts: []schema.MetaPart{
			{ID: "api", Description: "Write the api notes", AffectedFiles: []string{"notes"}, DependsOn: []string{"store"}},
			{ID: "store", Description: "Write the store notes", AffectedFiles: []string{"notes"}},
		}},
		parts: map[string]schema.PartPlan{
			"store": notesPlan("store", noteStep("s2", "Write the schema note", "notes/schema.txt"), noteStep("s1", "Write the table note", "notes/table.txt")),
			"api":   notesPlan("api", noteStep("s1", "Write the handler note", "notes/handler.txt")),
		},
	})
	out := f.solve(t, "Write the notes of the store, then of the api")
	if out.Status != StatusComplete || out.Parts != 2 || out.PartsDone != 2 {
		t.Fatalf("status %s, parts %d of %d; problems %v", out.Status, out.PartsDone, out.Parts, out.Problems)
	}
	want := []string{"store/s2: Write the schema note", "store/s1: Write the table note", "api/s1: Write the handler note"}
	if got := f.commits(out); !slices.Equal(got, want) {
		t.Errorf("commits on %s:\n%q\nwant\n%q", out.Branch, got, want)
	}
	if got, want := stepsRan(out), []string{"store/s2 ok 1", "store/s1 ok 1", "api/s1 ok 1"}; !slices.Equal(got, want) {
		t.Errorf("steps %q, want %q", got, want)
	}
	// A part is planned when its turn comes: after the parts it depends on.
	if got := f.script.sent(schema.StagePartPlan); len(got) != 2 || !strings.Contains(got[0], "\nPart store to plan:") || !strings.Contains(got[1], "\nPart api to plan:") {
		t.Errorf("part plan prompts %q", got)
	}
	passes := f.rows(t, `SELECT coalesce(p.part_id, '-') || ' ' || p.pass_type || coalesce(' ' || p.step_id, '') FROM orchestrator_passes p
		JOIN orchestrator_runs r ON r.id = p.orchestrator_run_id WHERE r.task_id = ? ORDER BY p.sequence_order`, out.TaskID)
	wantPasses := []string{"- meta_plan",
		"store part_plan", "store step_implement s2", "store adjustment s2", "store step_implement s1", "store adjustment s1",
		"api part_plan", "api step_implement s1", "api adjustment s1"}
	if !slices.Equal(passes, wantPasses) {
		t.Errorf("orchestrator_passes in order:\n%q\nwant\n%q", passes, wantPasses)
	}
}

// A step whose tests fail gets one retry, whose prompt carries the failing
// test and its output; the retry that passes is the step's commit, and
// each attempt has its rows.
func testRetry(t *testing.T, f *solveFixture) {
	f.use(t, &solveScript{
		meta:  onePart(),
		parts: map[string]schema.PartPlan{"p1": notesPlan("p1", noteStep("s1", "Write the first note", "notes/first.txt"))},
		notes: map[string][]string{"notes/first.txt": {"not yet", "ok"}},
	})
	out := f.solve(t, "Write the first note")
	if got := stepsRan(out); out.Status != StatusComplete || !slices.Equal(got, []string{"p1/s1 ok 2"}) {
		t.Fatalf("status %s, steps %q (want p1/s1 passed at its second attempt); problems %v", out.Status, got, out.Problems)
	}
	impl := f.script.sent(schema.StageImplement)
	if len(impl) != 2 {
		t.Fatalf("%d implement prompts, want 2", len(impl))
	}
	if strings.Contains(impl[0], "<previous_attempt_failed>") {
		t.Errorf("the first attempt's prompt has a failure:\n%s", impl[0])
	}
	failed := between(impl[1], "<previous_attempt_failed>\n", "</previous_attempt_failed>")
	for _, want := range []string{"Failing tests: Test_first\n", "--- FAIL: Test_first (notes/first.txt reads: not yet)", "not yet\n"} {
		if !strings.Contains(failed, want) {
			t.Errorf("the retry's failure lacks %q:\n%s", want, impl[1])
		}
	}
	if got, want := f.commits(out), []string{"p1/s1: Write the first note"}; !slices.Equal(got, want) {
		t.Errorf("commits %q, want %q", got, want)
	}
	if got := f.repo.Git("show", out.Branch+":notes/first.txt"); got != "ok" {
		t.Errorf("the branch's note reads %q, want the retry's", got)
	}
	want := []string{":impl:p1:s1\tfalse\t1\ttrue\tfalse\t[Test_first]\ttrue", ":impl:p1:s1:retry_1\ttrue\t2\ttrue\ttrue\t[]\tfalse"}
	if attempts := f.attempts(t, out); !slices.Equal(attempts, want) {
		t.Errorf("attempts:\n%q\nwant\n%q", attempts, want)
	}
}

// The adjustment after a step decides what runs next: a step it keeps by
// its id runs as planned, one it revises runs as revised, one it adds
// runs, one it leaves out does not, in the adjustment's order.
func testAdjustment(t *testing.T, f *solveFixture) {
	revised := noteStep("s2", "Write the second note, renamed", "notes/second-renamed.txt")
	added := noteStep("s5", "Write the fifth note", "notes/fifth.txt")
	f.use(t, &solveScript{
		meta: onePart(),
		parts: map[string]schema.PartPlan{"p1": notesPlan("p1",
			noteStep("s1", "Write the first note", "notes/first.txt"),
			noteStep("s2", "Write the second note", "notes/second.txt"),
			noteStep("s3", "Write the third note", "notes/third.txt"),
			noteStep("s4", "Write the fourth note", "notes/fourth.txt"))},
		// After s1: s3 kept and moved first, s2 revised, s5 added, s4
		// dropped; after that every adjustment keeps what is left.
		adjust: []string{adjustAnswer(keptStep("s3"), writtenStep(revised), writtenStep(added))},
	})
	out := f.solve(t, "Write the notes")
	want := []string{"p1/s1: Write the first note", "p1/s3: Write the third note", "p1/s2: Write the second note, renamed", "p1/s5: Write the fifth note"}
	if got := f.commits(out); out.Status != StatusComplete || !slices.Equal(got, want) {
		t.Fatalf("status %s, commits:\n%q\nwant\n%q\nproblems %v", out.Status, got, want, out.Problems)
	}
	files := strings.Fields(f.repo.Git("ls-tree", "-r", "--name-only", out.Branch, "notes/"))
	if wantFiles := []string{"notes/fifth.txt", "notes/first.txt", "notes/readme.txt", "notes/second-renamed.txt", "notes/third.txt"}; !slices.Equal(files, wantFiles) {
		t.Errorf("notes on the branch %q, want %q (s2 as revised, s4 dropped)", files, wantFiles)
	}
	impl := f.script.sent(schema.StageImplement)
	if len(impl) != 4 || !strings.Contains(impl[2], "Step s2 to implement now:\nWrite the second note, renamed\nFiles: notes/second-renamed.txt\n") {
		t.Errorf("s2's implement prompt is not the revised step:\n%q", impl)
	}
	// The next adjustment was shown the steps the first one left.
	if adj := f.script.sent(prompt.PlanAdjustment); len(adj) != 4 || !slices.Equal(prompt.RemainingSteps(adj[1]), []string{"s2", "s5"}) {
		t.Errorf("%d adjustment prompts; the second's remaining steps %q, want [s2 s5]", len(adj), prompt.RemainingSteps(adj[min(1, len(adj)-1)]))
	}
}

// A step that fails its retry too is recorded — its attempts, their
// validation rows, its pass unsuccessful — its changes are not on the
// branch, and the run goes on to the next step: partial.
func testFailedStep(t *testing.T, f *solveFixture) {
	f.use(t, &solveScript{
		meta: onePart(),
		parts: map[string]schema.PartPlan{"p1": notesPlan("p1",
			noteStep("s1", "Write the first note", "notes/first.txt"),
			noteStep("s2", "Write the second note", "notes/second.txt"),
			noteStep("s3", "Write the third note", "notes/third.txt"))},
		notes: map[string][]string{"notes/second.txt": {"wrong"}},
	})
	out := f.solve(t, "Write the notes")
	if got, want := stepsRan(out), []string{"p1/s1 ok 1", "p1/s2 FAIL 2", "p1/s3 ok 1"}; out.Status != StatusPartial || !slices.Equal(got, want) {
		t.Fatalf("status %s, steps %q, want partial with %q; problems %v", out.Status, got, want, out.Problems)
	}
	if s2 := out.Steps[1]; !slices.Equal(s2.FailingTests, []string{"Test_second"}) || s2.Error != "" {
		t.Errorf("s2's outcome %+v", s2)
	}
	if got, want := f.commits(out), []string{"p1/s1: Write the first note", "p1/s3: Write the third note"}; !slices.Equal(got, want) {
		t.Errorf("commits %q, want %q", got, want)
	}
	want := []string{
		":impl:p1:s1\ttrue\t1\ttrue\ttrue\t[]\tfalse",
		":impl:p1:s2\tfalse\t1\ttrue\tfalse\t[Test_second]\ttrue",
		":impl:p1:s2:retry_1\tfalse\t2\ttrue\tfalse\t[Test_second]\ttrue",
		":impl:p1:s3\ttrue\t1\ttrue\ttrue\t[]\tfalse",
	}
	if attempts := f.attempts(t, out); !slices.Equal(attempts, want) {
		t.Errorf("attempts:\n%q\nwant\n%q", attempts, want)
	}
	runs := f.rows(t, `SELECT status, total_parts, parts_completed, total_steps, steps_completed, completed_at IS NOT NULL FROM orchestrator_runs WHERE task_id = ?`, out.TaskID)
	if want := []string{"partial\t1\t0\t3\t2\ttrue"}; !slices.Equal(runs, want) {
		t.Errorf("orchestrator_runs %q, want %q", runs, want)
	}
	if got := f.rows(t, `SELECT success FROM task_runs WHERE task_id = ?`, out.TaskID); !slices.Equal(got, []string{"false"}) {
		t.Errorf("the run's task_runs success %q, want false", got)
	}
	// The adjustment after s2 was told it failed.
	if adj := f.script.sent(prompt.PlanAdjustment); len(adj) != 3 || !strings.Contains(adj[1], "step s2: tests failed after 2 attempt(s)\nfailing: Test_second") {
		t.Errorf("adjustment prompts %q", adj)
	}
}
