package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/ask"
	"github.com/cra-dev/cra/agent/ask/asktest"
	"github.com/cra-dev/cra/agent/eval"
	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// askEvalHome is a home that indexed and mined an AskHistory, every commit
// held out, and the fake model it calls, answering ask prompts as a model
// that knows each generated question's mode (asktest), with the
// classifier wrong at rate classifyErrors.
func askEvalHome(t *testing.T, classifyErrors float64) (*fakellm.Server, string, gittest.AskHistory) {
	h := gittest.NewAskHistory(t)
	srv := fakellm.New(t)
	srv.AllowUnused()
	home := cli.EvalHomeWith(t, srv, h.Dir, "", fmt.Sprintf("holdout_repos = [%q]", h.Dir))
	cli.MustRun(t, home, "index", h.Dir)
	raw := kb.NewLease(home, kb.Raw, kb.Options{Command: "test"}, kb.DefaultIdle)
	defer raw.Close()
	qs, err := eval.AskQuestions(context.Background(), eval.AskOptions{Home: home,
		Rule: kb.NewSplitRule(config.Curate{}, []string{kb.CanonicalPath(h.Dir)})}, raw)
	if err != nil {
		t.Fatal(err)
	}
	modes := map[string]ask.Mode{}
	for _, q := range qs {
		modes[q.Text] = q.Mode
	}
	answer := asktest.Answer(modes)
	srv.SetOracle(fakellm.Oracle{ErrorRate: map[string]float64{schema.StageAskClassify: classifyErrors},
		Answer: func(req fakellm.Request) (string, string, string, bool) {
			if n := len(req.Messages); n > 0 && req.Messages[n-1].Content == llm.PingPrompt {
				return "", "ok", "ok", true
			}
			return answer(req)
		}})
	return srv, home, h
}

func askEvalJSON(t *testing.T, home string, args ...string) eval.AskReport {
	t.Helper()
	var rep eval.AskReport
	if err := json.Unmarshal([]byte(cli.MustRun(t, home, append([]string{"ask", "--eval", "--json"}, args...)...)), &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// classified is each kind's classification accuracy.
func classified(rep eval.AskReport) string {
	var b strings.Builder
	for _, k := range rep.Kinds {
		fmt.Fprintf(&b, "%s:%d:%.2f ", k.Kind, k.Questions, k.Classification.Mean)
	}
	return strings.TrimSpace(b.String())
}

// Every kind of question is generated and scored over real HTTP; a
// classifier that is always wrong shows in the classification accuracy,
// --oracle classify recovers it, and a second run of the same eval asks
// nothing again. The bug report is the held-out fix, asked at its parent.
// train-plan never reads an ask eval as the pipeline's evidence, and says
// so when one is named with --eval.
func TestAskEval(t *testing.T) {
	t.Parallel()
	srv, home, h := askEvalHome(t, 1)
	planted := askEvalJSON(t, home, "--name", "planted")
	if got, want := classified(planted), "diagnostic:1:0.00 exploratory:5:0.00 conceptual:2:0.00 bugreport:1:0.00"; got != want {
		t.Errorf("planted classification errors: %s, want %s", got, want)
	}
	if planted.Status != "complete" || planted.Errors != 0 || planted.Questions != 9 {
		t.Errorf("report %+v", planted)
	}
	oracle := askEvalJSON(t, home, "--name", "planted", "--oracle", "classify")
	if got, want := classified(oracle), "diagnostic:1:1.00 exploratory:5:1.00 conceptual:2:1.00 bugreport:1:1.00"; got != want {
		t.Errorf("--oracle classify: %s, want %s", got, want)
	}
	calls := srv.Calls()
	again := askEvalJSON(t, home, "--name", "planted")
	if srv.Calls() != calls {
		t.Errorf("a resumed eval made %d model calls, want none", srv.Calls()-calls)
	}
	if classified(again) != classified(planted) {
		t.Errorf("resumed report %s, want %s", classified(again), classified(planted))
	}
	got := cli.SQLRows(t, home, `select q.kind, q.question, q.expected_files, q.rev = '`+h.Base+`' as at_parent, q.fix_commit = '`+h.Fix+`' as fix
		from raw.ask_questions q join raw.eval_runs r on r.id = q.eval_run_id
		where r.oracle = [] and q.kind in ('bugreport', 'diagnostic') order by all`)
	want := "kind,question,expected_files,at_parent,fix\n" +
		`bugreport,Fix crash when the name is empty,"[""tool/core.py""]",true,true` + "\n" +
		`diagnostic,"Why do I get ""UsageError: Missing parameter: name""?","[""tool/core.py""]",,` + "\n"
	if got != want {
		t.Errorf("questions:\n%s\nwant:\n%s", got, want)
	}
	counts := cli.SQLRows(t, home, `select r.oracle, count(*) from raw.eval_tasks t join raw.eval_runs r on r.id = t.eval_run_id group by all order by all`)
	if counts != "oracle,count_star()\n[],9\n\"[\"\"ask_classify\"\"]\",9\n" {
		t.Errorf("eval_tasks per eval:\n%s", counts)
	}

	// cra status tells the ask evals apart from cra eval's.
	if st := cli.MustRun(t, home, "status"); !strings.Contains(st, "planted (oracle ask_classify): 9 questions scored, 0 could not run") {
		t.Errorf("cra status does not show the ask eval:\n%s", st)
	}
	r := cli.Cra(t, home, "", "train-plan", "--eval", "planted")
	if r.Code != 2 || !strings.Contains(r.Stderr, "cra ask --eval run") {
		t.Errorf("train-plan --eval naming an ask eval: exit %d, %s", r.Code, r.Stderr)
	}
	// Ask evals alone are no evidence of the pipeline (analysis's
	// TestTrainPlanReportsAskEvals has them beside some).
	r = cli.Cra(t, home, "", "--json", "train-plan")
	if r.Code != 0 || strings.Contains(r.Stdout, "planted") || strings.Contains(r.Stdout, "ask_") {
		t.Errorf("train-plan with ask evals in the store: exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
}

// askEvalRows are an ask eval's rows that a killed and resumed eval must
// end with as an uninterrupted one does: its questions, one eval_tasks
// row each, and their scores.
func askEvalRows(t *testing.T, home string) string {
	// Question ids hash the repository's path, another in each home: the
	// rows are compared by question.
	return cli.SQLRows(t, home, `select q.kind, q.question, q.expected_files, q.rev, t.status
		from raw.ask_questions q join raw.eval_tasks t on t.eval_run_id = q.eval_run_id and t.task_id = q.question_id order by all`,
		`select task_id, count(*) as rows from raw.eval_tasks group by all having count(*) > 1`,
		`select q.question, r.stage, r.metric, r.value from raw.eval_results r
			join raw.ask_questions q on q.eval_run_id = r.eval_run_id and q.question_id = r.task_id order by all`,
		// every question's ask finished: a killed ask's own run is left
		// unfinished and never scored
		`select count(*) filter (where r.success is null) as unfinished from raw.eval_tasks t
			left join raw.task_runs r on r.id = t.task_run_id`)
}

// An ask eval killed with kill -9 and run again ends with the rows of an
// uninterrupted one: every question asked and scored once. The killed
// eval runs in a copy of the home the clean one runs in, made before it.
func TestAskEvalKilledResumesToTheSameRows(t *testing.T) {
	t.Parallel()
	_, clean, _ := askEvalHome(t, 0)
	killed := filepath.Join(t.TempDir(), "home")
	if err := os.CopyFS(killed, os.DirFS(clean)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cli.MustRun(t, clean, "ask", "--eval", "--name", "k")
	took := time.Since(start)
	want := askEvalRows(t, clean)
	args := []string{"--home", killed, "ask", "--eval", "--name", "k"}
	if !storetest.KillAfter(t, []string{clitest.ChildEnv(args...)}, took/2) {
		t.Error("the ask eval was not killed mid-run: the test proved nothing")
	}
	t.Logf("killed with %s questions done", strings.TrimSpace(strings.Split(cli.SQLRows(t, killed, "select count(*) from raw.eval_tasks"), "\n")[1]))
	cli.MustRun(t, killed, "ask", "--eval", "--name", "k")
	if got := askEvalRows(t, killed); got != want {
		t.Errorf("rows after the re-run differ from an uninterrupted eval's:\n%s", clitest.LineDiff(want, got))
	}
}
