package e2e_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/eval"
	"github.com/cra-dev/cra/agent/eval/evaltest"
	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/kb/schema"
)

// calcEvalHome is heldOutHome on a CalcHistoryWith(o) and its tests.
func calcEvalHome(t testing.TB, o evaltest.CalcOptions, testing string) (srv *fakellm.Server, home string) {
	return heldOutHome(t, evaltest.CalcHistoryWith(t, o).Dir, evaltest.CalcTestCommand, 60, testing)
}

// heldOutHome is a home that mined repo, every task held out, with
// command as its test command (timeout seconds) and testing's extra
// [testing] keys, and the fake model it calls.
func heldOutHome(t testing.TB, repo, command string, timeout int, testing string) (srv *fakellm.Server, home string) {
	srv = fakellm.New(t)
	srv.AllowUnused()
	home = cli.EvalHomeWith(t, srv, repo, fmt.Sprintf("test_command = %q\ntimeout_seconds = %d\n%s", command, timeout, testing),
		fmt.Sprintf("holdout_repos = [%q]", repo))
	return srv, home
}

// evalJSON runs cra eval with args and reads its report.
func evalJSON(t testing.TB, home string, args ...string) eval.Report {
	t.Helper()
	var rep eval.Report
	if err := json.Unmarshal([]byte(cli.MustRun(t, home, append([]string{"eval", "--json"}, args...)...)), &rep); err != nil {
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

// A task whose new test fails at its parent is judged by that test (fail
// to pass): the commit's own change succeeds, a run that changed nothing
// does not. A commit whose tests pass at the parent already (a docstring)
// is judged by reproduction: before, an unchanged suite passing counted as
// success.
func TestEvalJudgesByFailToPassTests(t *testing.T) {
	t.Parallel()
	o := evaltest.CalcOptions{Doc: true}
	srv, home := calcEvalHome(t, o, "")
	tasks := clitest.HeldOutTasks(t, home)
	if len(tasks) != o.Tasks() {
		t.Fatalf("%d tasks mined, want %d", len(tasks), o.Tasks())
	}
	answer := evaltest.Answer(tasks)
	srv.SetOracle(fakellm.Oracle{Answer: answer})
	good := evalJSON(t, home, "--name", "good")
	if s, _ := scoreOf(good, eval.StageEndToEnd, eval.MetricSuccess); s.Mean != 1 || s.N != o.Tasks() {
		t.Errorf("the commits' own changes: end-to-end %+v, want 1 on %d tasks", s, o.Tasks())
	}
	want := map[string]int{eval.JudgedByTests: o.Tasks() - 1, eval.JudgedByReproduction: 1}
	if fmt.Sprint(good.JudgedBy) != fmt.Sprint(want) {
		t.Errorf("judged by %v, want %v", good.JudgedBy, want)
	}
	judged := cli.SQLRows(t, home, "select judged_by, reason, fail_to_pass, fails_at_commit from raw.eval_commit_judgements order by all")
	wantJudged := "judged_by,reason,fail_to_pass,fails_at_commit\n" +
		"reproduction,no_fail_to_pass,[],[]\n" +
		`tests,fail_to_pass,"[""tests.test_calc.TestCalc.test_maximum""]",[]
tests,fail_to_pass,"[""tests.test_calc.TestCalc.test_minimum""]",[]
tests,fail_to_pass,"[""tests.test_calc.TestCalc.test_multiply""]",[]
tests,fail_to_pass,"[""tests.test_calc.TestCalc.test_subtract""]",[]
`
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
	if s, _ := scoreOf(empty, eval.StageEndToEnd, eval.MetricSuccess); s.Mean != 0 || s.N != o.Tasks() {
		t.Errorf("runs that changed nothing: end-to-end %+v, want 0 on %d tasks", s, o.Tasks())
	}
	if got := cli.SQLRows(t, home, "select count(*) from raw.task_runs where task_id like 'eval2-%' and not contains(task_id, ':') and coalesce(final_diff, '') <> ''"); got != "count_star()\n0\n" {
		t.Errorf("runs of the empty model with a diff: %s", got)
	}
	// The judgements were made once, by the first eval.
	if got := cli.SQLRows(t, home, "select count(*) from raw.eval_commit_judgements"); got != fmt.Sprintf("count_star()\n%d\n", o.Tasks()) {
		t.Errorf("judgements after two evals: %s", got)
	}
}

// A test that hangs at a commit's parent costs the eval its own timeout
// (a multiple of the commit's test time, here at the floor of 3 s), not
// timeout_seconds, once: the task is undecidable (no success counted),
// its steps run no test, and the other tasks are judged as ever.
func TestEvalBoundsATestThatHangsAtTheParent(t *testing.T) {
	t.Parallel()
	o := evaltest.CalcOptions{Hang: true}
	srv, home := calcEvalHome(t, o, "eval_timeout_floor_seconds = 3\neval_timeout_factor = 2")
	clitest.OracleFor(t, srv, home, nil)
	rep := evalJSON(t, home, "--name", "hang")
	want := map[string]int{eval.JudgedByTests: o.Tasks() - 1, eval.JudgedUndecidable: 1}
	if fmt.Sprint(rep.JudgedBy) != fmt.Sprint(want) || rep.Errors != 0 {
		t.Fatalf("judged by %v (%d errors), want %v", rep.JudgedBy, rep.Errors, want)
	}
	if s, _ := scoreOf(rep, eval.StageEndToEnd, eval.MetricSuccess); s.N != o.Tasks()-1 || s.Mean != 1 {
		t.Errorf("end to end %+v: want the decidable tasks alone, solved", s)
	}
	row := strings.Split(strings.TrimSpace(cli.SQLRows(t, home, `select j.reason, j.timeout_ms, t.elapsed_ms from raw.eval_tasks t
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
	if got := cli.SQLRows(t, home, `select count(*) from raw.validation_results v join raw.run_attempts a on a.id = v.attempt_id
		join raw.task_runs r on r.id = a.task_run_id join raw.eval_tasks t on starts_with(r.task_id, 'eval1-' || left(t.task_id, 16))
		where t.judged_by = 'undecidable' and not starts_with(v.test_output, 'the tests did not end within')`); got != "count_star()\n0\n" {
		t.Errorf("test runs in the undecidable task's steps: %s", got)
	}
}
