package curate_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/eval/evaltest"
	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/internal/storetest"
)

// plantedKey is a credential in a task, so in every logged prompt of the
// solve run: it must never reach a dataset.
const plantedKey = "AKIAIOSFODNN7EXAMPLE"

// loggedStore is a home whose raw store holds a real cra eval (every scope
// answer wrong against the ground truth) and a real cra solve whose first
// step fails its tests then passes on the retry, and whose adjustment
// after it rewrites the next step, which then passes: a copy, for t, of
// one such home (logged) built once for the package's tests, served by a
// fake model of t's own (answering as the built home's did after the solve).
func loggedStore(t *testing.T) (home string, srv *fakellm.Server) {
	t.Helper()
	l := logged.Get(t)
	srv = fakellm.New(t)
	srv.AllowUnused()
	home = clitest.CopyHomeServedBy(t, l.home, l.url, srv.OllamaURL())
	clitest.OracleFor(t, srv, home, map[string]float64{"scope": 1})
	(&clitest.SolveScript{Meta: clitest.OnePart, Part: twoSteps, Implement: []string{clitest.BreakAdd, clitest.FixAdd, docDouble}, Adjust: adjustDouble}).Install(t, srv)
	return home, srv
}

// The solve run of logged: two steps on calc.py, the first broken then
// fixed, the second rewritten by the adjustment after the first.
var (
	twoSteps     = `{"part_id": "p1", "task_summary": "", "steps": [{"id": "s1", "description": "Make add return the sum", "target_files": ["calc.py"], "target_symbols": [], "depends_on": []}, {"id": "s2", "description": "Document double", "target_files": ["calc.py"], "target_symbols": [], "depends_on": []}], "rationale": ""}`
	docDouble    = "<edit file=\"calc.py\">\n<search>\ndef double(x):\n</search>\n<replacement>\ndef double(x):\n    \"\"\"Twice x.\"\"\"\n</replacement>\n</edit>"
	adjustDouble = []string{`{"revised_steps": [{"id": "s2", "description": "Give double a docstring saying it returns twice x", "target_files": ["calc.py"], "target_symbols": ["double"], "depends_on": []}], "rationale": "add is fixed; say what double returns", "changes_made": ["s2: name the docstring"]}`,
		`{"revised_steps": [], "rationale": "done", "changes_made": []}`}
)

// logged is the home loggedStore copies: an eval and a solve cost seconds
// of CPU, and three tests read their rows (each changes only its copy).
// Its repositories and fake model outlive the test that built it.
var logged = clitest.NewFixture(func(t testing.TB) (l struct{ home, url string }) {
	srv := fakellm.New(t)
	srv.AllowUnused()
	repo := evaltest.CalcHistory(t)
	// No validation fraction: the one solve run trains whatever its id and
	// the temporary paths hash to (curate-data refuses a named stage with
	// no train example); the eval's repository is held out whole.
	home := cli.EvalHome(t, srv, repo.Dir, fmt.Sprintf("holdout_repos = [%q]\nvalidation_fraction = 0.0", repo.Dir))
	clitest.OracleFor(t, srv, home, map[string]float64{"scope": 1})
	if res := cli.Cra(t, home, "", "eval", "--name", "nightly"); res.Code != clitest.ExitOK && res.Code != clitest.ExitFailures {
		t.Fatalf("eval: exit %d: %s\n%s", res.Code, res.Stderr, res.Stdout)
	}

	solve := &clitest.SolveScript{Meta: clitest.OnePart, Part: twoSteps, Implement: []string{clitest.BreakAdd, clitest.FixAdd, docDouble}, Adjust: adjustDouble}
	solve.Install(t, srv)
	r := clitest.CalcRepo(t)
	cli.MustRun(t, home, "index", r.Dir)
	if res := cli.Cra(t, home, "", "solve", "--repo", r.Dir, "Fix add and document double (deploy key "+plantedKey+")"); res.Code != clitest.ExitOK {
		t.Fatalf("solve: exit %d: %s\n%s", res.Code, res.Stderr, res.Stdout)
	}
	// Nothing may call this model once it is built: its script reports to
	// a test that is over by then.
	srv.SetDefault(func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Status: 500} })
	l.home, l.url = home, srv.OllamaURL()
	return l
})

// curate-data over real solve and eval runs: SFT rows from verified
// answers, a pair of each signal, KTO rows and their balance, eval tasks
// kept out of train, and the planted credential in no row.
func TestCurateDataFromLoggedRuns(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs cra eval and cra solve")
	}
	home, _ := loggedStore(t)
	res := cli.Cra(t, home, "", "--json", "curate-data", "--source", "logged", "--kind", "all", "--name", "logged")
	if res.Code != clitest.ExitOK {
		t.Fatalf("exit %d: %s\n%s", res.Code, res.Stderr, res.Stdout)
	}
	var sum struct {
		Runs    int                                  `json:"runs"`
		Kinds   map[string]map[string]map[string]int `json:"kinds"`
		Signals map[string]int                       `json:"signals"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Runs < 2 {
		t.Errorf("runs read %d", sum.Runs)
	}

	q := func(query string) string { return cli.SQLRows(t, home, query) }
	const solveRows = "FROM raw.training_examples WHERE dataset = 'logged' AND task_id IS NULL"
	// SFT from the solve run: the passing retry and the second step (by
	// their tests), the plan passes of the complete run, and the scope and
	// precision answers that kept calc.py.
	if got := q("SELECT signal, stage, count(*) " + solveRows + " AND kind = 'sft' GROUP BY ALL ORDER BY ALL"); got !=
		"signal,stage,count_star()\ncomplete_run,meta_plan,1\ncomplete_run,part_plan,1\nimplement_tests,implement,2\nsolve_kept,precision,1\nsolve_kept,scope,1\n" {
		t.Errorf("SFT rows of the solve run:\n%s", got)
	}
	// Each SFT row is the exact logged prompt and the answer that proved
	// right: the retry's prompt carries the failure, its answer the fix.
	if got := q("SELECT count(*) FROM raw.training_examples e JOIN raw.retrieval_llm_calls c ON c.id = (e.evidence->>'call_id')::BIGINT " +
		"WHERE e.dataset = 'logged' AND e.kind = 'sft' AND e.source = 'logged' AND (e.messages[2].content <> replace(c.prompt, '" + plantedKey + "', '[REDACTED]') " +
		"OR e.messages[3].content <> c.response OR e.messages[1].content <> c.system_prompt)"); got != "count_star()\n0\n" {
		t.Errorf("SFT rows that are not their logged call:\n%s", got)
	}
	if got := q("SELECT messages[3].content LIKE '%return a + b%' AS a, messages[2].content LIKE '%<previous_attempt_failed>%' AS b, evidence->>'tests_passed' AS c " +
		solveRows + " AND kind = 'sft' AND signal = 'implement_tests' AND (evidence->>'attempt') = '2'"); got != "a,b,c\ntrue,true,true\n" {
		t.Errorf("the retry's SFT row:\n%s", got)
	}

	// Pairs: the coder retry on the first attempt's prompt, the adjustment
	// that then succeeded, and an eval pair per wrong scope answer.
	if got := q("SELECT signal, stage, count(*) FROM raw.training_examples WHERE dataset = 'logged' AND kind = 'preference' GROUP BY ALL ORDER BY ALL"); !strings.HasPrefix(got,
		"signal,stage,count_star()\nadjustment,adjustment,1\ncoder_retry,implement,1\n") || !strings.Contains(got, "\neval,scope,") {
		t.Errorf("pairs:\n%s", got)
	}
	if got := q("SELECT chosen[1].content LIKE '%return a + b%', rejected[1].content LIKE '%return a * b%', messages[2].content LIKE '%<previous_attempt_failed>%', " +
		"evidence->>'tests_passed', len(messages), chosen[1].role " + solveRows + " AND signal = 'coder_retry'"); !strings.HasSuffix(got, "\ntrue,true,false,true,2,assistant\n") {
		t.Errorf("the coder retry pair:\n%s", got)
	}
	if got := q("SELECT chosen[1].content LIKE '%docstring saying it returns twice x%', rejected[1].content LIKE '%\"keep\": true%', rejected[1].content NOT LIKE '%Document double%' " +
		solveRows + " AND signal = 'adjustment'"); !strings.HasSuffix(got, "\ntrue,true,true\n") {
		t.Errorf("the adjustment pair:\n%s", got)
	}
	// An eval pair: the wrong scope answer rejected, the ground truth
	// chosen; from a held-out task, so validation.
	if got := q("SELECT count(*) FILTER (WHERE chosen[1].content = rejected[1].content) AS same, count(*) FILTER (WHERE split <> 'validation') AS train, " +
		"count(*) FILTER (WHERE task_id IS NULL) AS untasked, count(*) > 0 AS some FROM raw.training_examples WHERE dataset = 'logged' AND signal = 'eval'"); got !=
		"same,train,untasked,some\n0,0,0,true\n" {
		t.Errorf("eval pairs:\n%s", got)
	}
	// Nothing of an eval's runs is in train.
	if got := q("SELECT count(*) FROM raw.training_examples WHERE dataset = 'logged' AND task_id IN (SELECT task_id FROM raw.eval_tasks) AND split = 'train'"); got != "count_star()\n0\n" {
		t.Errorf("eval tasks in train:\n%s", got)
	}
	// KTO: the failed first attempt negative, the passing ones positive;
	// wrong eval answers negative.
	if got := q("SELECT label, count(*) " + solveRows + " AND kind = 'kto' AND stage = 'implement' GROUP BY ALL ORDER BY ALL"); got != "label,count_star()\nnegative,1\npositive,2\n" {
		t.Errorf("KTO implement rows of the solve run:\n%s", got)
	}
	if got := q("SELECT label, count(*) FROM raw.training_examples WHERE dataset = 'logged' AND kind = 'kto' AND stage = 'scope' AND task_id IS NOT NULL GROUP BY ALL"); !strings.HasPrefix(got, "label,count_star()\nnegative,") {
		t.Errorf("KTO scope rows of the eval:\n%s", got)
	}
	// The planted credential is in no field of any row.
	if got := q("SELECT count(*) FROM raw.training_examples WHERE dataset = 'logged' AND (messages::VARCHAR || coalesce(chosen::VARCHAR, '') || " +
		"coalesce(rejected::VARCHAR, '') || coalesce(evidence::VARCHAR, '')) LIKE '%" + plantedKey + "%'"); got != "count_star()\n0\n" {
		t.Errorf("rows holding the credential:\n%s", got)
	}
	if got := q("SELECT count(*) > 0 " + solveRows + " AND messages[2].content LIKE '%[REDACTED]%'"); got != "(count_star() > 0)\ntrue\n" {
		t.Errorf("the credential was not redacted:\n%s", got)
	}

	// Balance: with a positive fraction of one half, each stage keeps as
	// many positive as negative KTO rows.
	res = cli.Cra(t, home, "", "--json", "curate-data", "--source", "logged", "--kind", "kto", "--positive-fraction", "0.5", "--name", "kto")
	if res.Code != clitest.ExitOK {
		t.Fatalf("exit %d: %s\n%s", res.Code, res.Stderr, res.Stdout)
	}
	if got := q("SELECT stage, count(*) FILTER (WHERE label = 'positive') = count(*) FILTER (WHERE label = 'negative') AS even FROM raw.training_examples " +
		"WHERE dataset = 'kto' AND stage IN ('implement', 'scope') GROUP BY ALL ORDER BY ALL"); got != "stage,even\nimplement,true\nscope,true\n" {
		t.Errorf("KTO balance:\n%s", got)
	}
	if !strings.Contains(res.Stdout, `"kto_balance"`) {
		t.Errorf("the summary does not count the rows balance left out:\n%s", res.Stdout)
	}
	if got := q("SELECT kind, sum(positive_count), sum(negative_count) FROM raw.training_datasets WHERE name = 'kto' GROUP BY ALL"); !strings.HasPrefix(got, "kind,sum(positive_count),sum(negative_count)\nkto,") {
		t.Errorf("training_datasets of the KTO dataset:\n%s", got)
	}

	// --repos keeps the rows of that repository's runs only.
	solveRepo := strings.TrimSpace(strings.TrimPrefix(q("SELECT DISTINCT repo_path FROM raw.task_runs WHERE starts_with(task_id, 'solve-')"), "repo_path\n"))
	cli.MustRun(t, home, "curate-data", "--source", "logged", "--kind", "all", "--repos", solveRepo, "--name", "one-repo")
	if got := q("SELECT DISTINCT repo_path = '" + solveRepo + "' AS only, count(*) > 0 AS some FROM raw.training_examples WHERE dataset = 'one-repo' GROUP BY ALL"); got != "only,some\ntrue,true\n" {
		t.Errorf("--repos %s:\n%s", solveRepo, got)
	}

	// Decontamination: with the eval's repository no longer held out, its
	// evaluated commits' synthetic examples would enter train: refused,
	// nothing written.
	if res := cli.Cra(t, home, "", "curate-data", "--source", "all", "--kind", "all", "--holdout-repos", solveRepo, "--name", "leak"); res.Code != clitest.ExitUsage ||
		!strings.Contains(res.Stderr, "commits cra eval scored the agent on") {
		t.Errorf("a leak: exit %d, %s", res.Code, res.Stderr)
	}
	if got := q("SELECT count(*) FROM raw.training_examples WHERE dataset = 'leak'"); got != "count_star()\n0\n" {
		t.Errorf("the refused dataset wrote rows: %s", got)
	}

	// A training plan chooses the sources, stages, kinds (SFT, and pairs
	// when it asks for them), the balance and the outcome of the runs.
	plan := filepath.Join(t.TempDir(), "plan.json")
	os.WriteFile(plan, []byte(`{"target_stage": "implement", "data_criteria": {"stages": ["implement"], "sources": ["logged"],
		"logged_outcome": "success", "positive_fraction": 1, "preference_pairs": true}}`), 0o644)
	cli.MustRun(t, home, "curate-data", "--training-plan", plan, "--name", "planned")
	if got := q("SELECT DISTINCT kind, stage, source FROM raw.training_examples WHERE dataset = 'planned' ORDER BY ALL"); got !=
		"kind,stage,source\npreference,implement,logged\nsft,implement,logged\n" {
		t.Errorf("the plan's selection:\n%s", got)
	}
	if got := q("SELECT count(*) FROM raw.training_examples e JOIN raw.task_runs t ON t.task_id = (e.evidence->>'run') " +
		"WHERE e.dataset = 'planned' AND NOT t.success"); got != "count_star()\n0\n" {
		t.Errorf("rows of runs that did not succeed, with logged_outcome success:\n%s", got)
	}
	if got := q("SELECT (criteria->>'kinds') = '[\"sft\",\"preference\"]' AS kinds, criteria->>'positive_fraction' AS f FROM raw.dataset_versions WHERE name = 'planned'"); got != "kinds,f\ntrue,1\n" {
		t.Errorf("the recorded criteria:\n%s", got)
	}
}

// The same store's dataset in every export layout: no file holds the
// planted credential; and cra distill on the failed first attempt gives a
// teacher-vs-student pair.
func TestLoggedDatasetExportsAndTeacherPairs(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs cra eval, cra solve and cra distill")
	}
	home, srv := loggedStore(t)
	cli.MustRun(t, home, "curate-data", "--source", "logged", "--kind", "all", "--name", "logged")
	for _, args := range [][]string{
		{"--layout", "trl", "--format", "parquet"}, {"--layout", "trl", "--format", "jsonl"},
		{"--layout", "axolotl", "--format", "jsonl"}, {"--layout", "openai", "--format", "jsonl", "--kinds", "sft,preference"},
	} {
		out := filepath.Join(t.TempDir(), "export")
		cli.MustRun(t, home, append([]string{"datasets", "export", "logged", "--out", out}, args...)...)
		files := 0
		filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files++
			if bytes.Contains(b, []byte(plantedKey)) {
				t.Errorf("%v: %s holds the planted credential", args, p)
			}
			return nil
		})
		if files < 5 {
			t.Errorf("%v: %d files", args, files)
		}
	}

	// Two curate-data processes on one name over logged runs, with a cra sql
	// reader beside them: each builds a whole version with the same rows
	// as the single run; the reader reads whole versions only, or is told
	// which process holds the store.
	res := clitest.Processes(t,
		[]string{"--home", home, "curate-data", "--source", "logged", "--kind", "all", "--name", "logged", "--wait", "1m"},
		[]string{"--home", home, "curate-data", "--source", "logged", "--kind", "all", "--name", "logged", "--wait", "1m"},
		[]string{"--home", home, "--json", "datasets", "show", "logged"})
	for i, r := range res[:2] {
		if r.Code != clitest.ExitOK {
			t.Fatalf("process %d: exit %d, %s", i, r.Code, r.Stderr)
		}
	}
	total := func(examples map[string]map[string]int) (n int) {
		for _, splits := range examples {
			for _, c := range splits {
				n += c
			}
		}
		return n
	}
	var first, seen struct {
		Examples map[string]map[string]int `json:"examples"`
	}
	json.Unmarshal([]byte(cli.MustRun(t, home, "--json", "datasets", "show", "logged@1")), &first)
	if r := res[2]; r.Code == clitest.ExitOK {
		if err := json.Unmarshal([]byte(r.Stdout), &seen); err != nil || total(seen.Examples) != total(first.Examples) {
			t.Errorf("the reader saw a version of %d examples, not %d: %v", total(seen.Examples), total(first.Examples), err)
		}
	} else if !strings.Contains(r.Stderr, "cra curate-data") {
		t.Errorf("the reader: exit %d, %q", r.Code, r.Stderr)
	}
	one := "SELECT id, kind, stage, split, label FROM raw.training_examples WHERE dataset = 'logged' AND version = %d ORDER BY ALL"
	if a, b, c := cli.SQLRows(t, home, fmt.Sprintf(one, 1)), cli.SQLRows(t, home, fmt.Sprintf(one, 2)), cli.SQLRows(t, home, fmt.Sprintf(one, 3)); a != b || a != c {
		t.Errorf("versions built side by side differ from the single run's")
	}

	// The teacher answers the student's failed first attempt with the fix.
	path := filepath.Join(home, "config.toml")
	cfg, _ := os.ReadFile(path)
	text := strings.Replace(string(cfg), "[teacher]\n", "[teacher]\nbase_url = \""+srv.OpenAIURL()+"\"\nmodel = \"teacher-1\"\n"+
		"api_key_env = \""+distillKeyEnv+"\"\nmax_tokens = 512\n", 1)
	text = strings.Replace(text, "[teacher.prices]\n", "[teacher.prices]\ninput_per_million = 3.0\noutput_per_million = 15.0\n", 1)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	srv.SetDefault(func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Text: clitest.FixAdd} })
	if res := cli.Cra(t, home, "", "distill", "--from", "failed-runs", "--stage", "implement", "--name", "teach"); res.Code != clitest.ExitOK && res.Code != clitest.ExitFailures {
		t.Fatalf("distill: exit %d: %s\n%s", res.Code, res.Stderr, res.Stdout)
	}
	cli.MustRun(t, home, "curate-data", "--source", "distilled", "--kind", "preference", "--name", "pairs")
	got := cli.SQLRows(t, home, "SELECT chosen[1].content LIKE '%return a + b%' AS fix, rejected[1].content LIKE '%return a * b%' AS broken, "+
		"messages[2].content LIKE '%"+plantedKey+"%' AS leak, c.call_type FROM raw.training_examples e "+
		"JOIN raw.retrieval_llm_calls c ON c.id = (e.evidence->>'student_call_id')::BIGINT WHERE e.dataset = 'pairs' AND e.signal = 'teacher_student' "+
		"AND starts_with(c.task_id, 'solve-')")
	if got != "fix,broken,leak,call_type\ntrue,true,false,implement\n" {
		t.Errorf("teacher-vs-student pairs of the solve run:\n%s", got)
	}
}

// curate-data over logged runs killed -9 at several points, then run
// again: the dataset's newest version holds exactly the rows of a clean
// build, no version is half visible, and no row is written twice.
func TestCurateDataLoggedKilledThenRunAgain(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs cra eval and cra solve, then kills curate-data")
	}
	home, _ := loggedStore(t)
	rows := "SELECT id, kind, stage, split, label, signal, messages, chosen, rejected FROM raw.training_examples " +
		"WHERE dataset = 'k' AND version = (SELECT max(version) FROM raw.dataset_versions WHERE name = 'k') ORDER BY id"
	args := []string{"--home", home, "curate-data", "--source", "logged", "--kind", "all", "--name", "k"}
	// A clean build in a child process, as the killed ones run: how long
	// it takes, start-up included.
	child := clitest.Child(args...)
	start := time.Now()
	if out, err := child.CombinedOutput(); err != nil {
		t.Fatalf("clean build: %v\n%s", err, out)
	}
	took := time.Since(start)
	want := cli.SQLRows(t, home, rows)
	for _, frac := range []float64{0.3, 0.6, 0.85} {
		killed := storetest.KillAfter(t, []string{clitest.ChildEnv(args...)}, time.Duration(frac*float64(took)))
		t.Logf("at %.0f%%: killed %v, leaving %s", frac*100, killed, strings.ReplaceAll(cli.SQLRows(t, home,
			"SELECT count(*) AS staged_rows FROM raw.training_examples_staging WHERE dataset = 'k'"), "\n", " "))
		if got := cli.SQLRows(t, home, "SELECT count(*) FROM raw.training_examples WHERE dataset = 'k' AND version NOT IN "+
			"(SELECT version FROM raw.dataset_versions WHERE name = 'k')"); got != "count_star()\n0\n" {
			t.Errorf("at %.0f%%: rows of a version never registered are visible: %s", frac*100, got)
		}
		if got := cli.SQLRows(t, home, rows); got != want {
			t.Errorf("at %.0f%%: the newest visible version differs from a clean build's", frac*100)
		}
		cli.MustRun(t, home, args[2:]...)
		if got := cli.SQLRows(t, home, rows); got != want {
			t.Errorf("at %.0f%%: the build after the kill differs from a clean build's", frac*100)
		}
	}
	if got := cli.SQLRows(t, home, "SELECT count(*) FROM (SELECT version, id FROM raw.training_examples WHERE dataset = 'k' GROUP BY ALL HAVING count(*) > 1)"); got != "count_star()\n0\n" {
		t.Errorf("rows written twice: %s", got)
	}
	if got := cli.SQLRows(t, home, "SELECT count(*) FROM raw.training_examples e WHERE dataset = 'k' AND version NOT IN (SELECT version FROM raw.dataset_versions WHERE name = 'k')"); got != "count_star()\n0\n" {
		t.Errorf("rows of versions never registered: %s", got)
	}
}
