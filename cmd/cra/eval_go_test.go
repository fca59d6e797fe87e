package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/eval"
	"github.com/cra-dev/cra/agent/eval/evaltest"
	"github.com/cra-dev/cra/agent/orchestrator"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb/schema"
)

// goEvalHome is a home that mined a GoHistory of o, every task held out,
// with go test as its test command and testing's extra keys, and the
// fake model it calls.
func goEvalHome(t testing.TB, o evaltest.GoOptions, testing string) (srv *fakellm.Server, home string) {
	srv = fakellm.New(t)
	srv.AllowUnused()
	r := evaltest.GoHistory(t, o)
	home = evalHomeWith(t, srv, r.Dir, fmt.Sprintf("test_command = %q\ntimeout_seconds = 120\n%s", evaltest.GoTestCommand, testing),
		fmt.Sprintf("holdout_repos = [%q]", r.Dir))
	warmBoxCache.Copy(t, home)
	return srv, home
}

// warmBoxCache is a home's sandbox cache (orchestrator.BoxCache) after one
// confined go test of a package like GoHistory's, made once per test
// binary. A new home's first confined go test builds the standard library
// into its empty cache (cra's one-time warm-up: half a minute of CPU);
// these tests are about judging evals, not that warm-up (box_test.go
// covers the box's cache), so each home starts warm. Where bubblewrap
// cannot run, the runs use the user's cache and this is empty.
var warmBoxCache = storetest.NewTemplate(func(home string) error {
	wt, err := os.MkdirTemp("", "cra-warm-box-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(wt)
	for name, text := range map[string]string{
		"go.mod":       "module example.com/calc\n\ngo 1.22\n",
		"calc.go":      "package calc\n\nimport \"time\"\n\n// Wait waits.\nfunc Wait() { time.Sleep(0) }\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestWait(t *testing.T) { Wait() }\n",
	} {
		if err := os.WriteFile(filepath.Join(wt, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	box, err := orchestrator.NewBox(config.Default().Testing, os.Environ(), home)
	if err != nil {
		return err
	}
	if r := orchestrator.RunShell(context.Background(), box, wt, orchestrator.KindTest, evaltest.GoTestCommand, 10*time.Minute); !r.Passed {
		return fmt.Errorf("go test in the box: %s", r.Output)
	}
	return nil
})

// evalJSON runs cra eval with args and reads its report.
func evalJSON(t testing.TB, home string, args ...string) eval.Report {
	t.Helper()
	var rep eval.Report
	if err := json.Unmarshal([]byte(mustRun(t, home, append([]string{"eval", "--json"}, args...)...)), &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

func scoreOf(rep eval.Report, stage, metric string) (eval.StageScore, bool) {
	for _, s := range rep.Scores {
		if s.Stage == stage && s.Metric == metric {
			return s, true
		}
	}
	return eval.StageScore{}, false
}

// On a Go module with a real test suite, a task whose new test fails at
// its parent is judged by that test (fail to pass): the commit's own
// change succeeds, a run that changed nothing does not. A commit whose
// tests pass at the parent already (a doc comment) is judged by
// reproduction: before, an unchanged suite passing counted as success.
func TestEvalJudgesByFailToPassTests(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs go test on every task")
	}
	o := evaltest.GoOptions{Ops: 2, Doc: true}
	srv, home := goEvalHome(t, o, "")
	tasks := heldOutTasks(t, home)
	if len(tasks) != o.GoTasks() {
		t.Fatalf("%d tasks mined, want %d", len(tasks), o.GoTasks())
	}
	answer := evaltest.Answer(tasks)
	srv.SetOracle(fakellm.Oracle{Answer: answer})
	good := evalJSON(t, home, "--name", "good")
	if s, _ := scoreOf(good, eval.StageEndToEnd, eval.MetricSuccess); s.Mean != 1 || s.N != o.GoTasks() {
		t.Errorf("the commits' own changes: end-to-end %+v, want 1 on %d tasks", s, o.GoTasks())
	}
	want := map[string]int{eval.JudgedByTests: o.Ops, eval.JudgedByReproduction: 1}
	if fmt.Sprint(good.JudgedBy) != fmt.Sprint(want) {
		t.Errorf("judged by %v, want %v", good.JudgedBy, want)
	}
	judged := sqlRows(t, home, "select judged_by, reason, fail_to_pass, fails_at_commit from raw.eval_commit_judgements order by all")
	wantJudged := "judged_by,reason,fail_to_pass,fails_at_commit\n" +
		"reproduction,no_fail_to_pass,[],[]\n" +
		strings.Repeat(`tests,fail_to_pass,"[""example.com/calc: package failed""]",[]`+"\n", o.Ops)
	if judged != wantJudged {
		t.Errorf("judgements:\n%s\nwant\n%s", judged, wantJudged)
	}

	// A model whose edits never apply leaves every run's diff empty.
	srv.SetOracle(fakellm.Oracle{Answer: func(req fakellm.Request) (string, string, string, bool) {
		stage, right, wrong, ok := answer(req)
		if stage == schema.StageImplement {
			wrong = "I would change nothing."
		}
		return stage, right, wrong, ok
	}, ErrorRate: map[string]float64{schema.StageImplement: 1}})
	empty := evalJSON(t, home, "--name", "empty")
	if s, _ := scoreOf(empty, eval.StageEndToEnd, eval.MetricSuccess); s.Mean != 0 || s.N != o.GoTasks() {
		t.Errorf("runs that changed nothing: end-to-end %+v, want 0 on %d tasks", s, o.GoTasks())
	}
	if got := sqlRows(t, home, "select count(*) from raw.task_runs where task_id like 'eval2-%' and not contains(task_id, ':') and coalesce(final_diff, '') <> ''"); got != "count_star()\n0\n" {
		t.Errorf("runs of the empty model with a diff: %s", got)
	}
	// The judgements were made once, by the first eval.
	if got := sqlRows(t, home, "select count(*) from raw.eval_commit_judgements"); got != fmt.Sprintf("count_star()\n%d\n", o.GoTasks()) {
		t.Errorf("judgements after two evals: %s", got)
	}
}

// A test that hangs at a commit's parent costs the eval its own timeout
// (a multiple of the commit's test time, here at the floor of 3 s), not
// timeout_seconds, once: the task is undecidable (no success counted),
// its steps run no test, and the other tasks are judged as ever.
func TestEvalBoundsATestThatHangsAtTheParent(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs go test on every task")
	}
	o := evaltest.GoOptions{Ops: 1, Hang: true}
	srv, home := goEvalHome(t, o, "eval_timeout_floor_seconds = 3\neval_timeout_factor = 2")
	oracleFor(t, srv, home, nil)
	rep := evalJSON(t, home, "--name", "hang")
	want := map[string]int{eval.JudgedByTests: 1, eval.JudgedUndecidable: 1}
	if fmt.Sprint(rep.JudgedBy) != fmt.Sprint(want) || rep.Errors != 0 {
		t.Fatalf("judged by %v (%d errors), want %v", rep.JudgedBy, rep.Errors, want)
	}
	if s, _ := scoreOf(rep, eval.StageEndToEnd, eval.MetricSuccess); s.N != 1 || s.Mean != 1 {
		t.Errorf("end to end %+v: want the decidable task alone, solved", s)
	}
	row := strings.Split(strings.TrimSpace(sqlRows(t, home, `select j.reason, j.timeout_ms, t.elapsed_ms from raw.eval_tasks t
		join raw.synthetic_tasks s on s.id = t.task_id join raw.eval_commit_judgements j on j.commit = s.commit
		where t.judged_by = 'undecidable'`)), "\n")
	if len(row) != 2 {
		t.Fatalf("undecidable tasks: %q", row)
	}
	f := strings.Split(row[1], ",")
	timeout, _ := strconv.Atoi(f[1])
	elapsed, _ := strconv.Atoi(f[2])
	if f[0] != eval.ReasonTimeoutAtParent || timeout != 3000 {
		t.Errorf("judgement %q, want timeout_at_parent after 3000 ms", row[1])
	}
	// The hang is paid once (the tests at the parent), not by the steps,
	// a retry and the judgement: well under two timeouts beside the rest.
	if took := time.Duration(elapsed) * time.Millisecond; took > 2*time.Duration(timeout)*time.Millisecond+30*time.Second {
		t.Errorf("the hanging task took %s", took)
	}
	if got := sqlRows(t, home, `select count(*) from raw.validation_results v join raw.run_attempts a on a.id = v.attempt_id
		join raw.task_runs r on r.id = a.task_run_id join raw.eval_tasks t on starts_with(r.task_id, 'eval1-' || left(t.task_id, 16))
		where t.judged_by = 'undecidable' and not starts_with(v.test_output, 'the tests did not end within')`); got != "count_star()\n0\n" {
		t.Errorf("test runs in the undecidable task's steps: %s", got)
	}
}
