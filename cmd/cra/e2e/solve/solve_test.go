package solve_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/orchestrator"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/kb/schema"
)

// One part, one step, right at the first try: complete, exit 0, a commit
// on the run's branch, the user's checkout untouched, every row written.
func TestSolveOneStep(t *testing.T) {
	t.Parallel()
	s := &clitest.SolveScript{Meta: clitest.OnePart, Part: clitest.OneStep, Implement: []string{clitest.FixAdd}}
	srv := s.Server(t)
	r := clitest.CalcRepo(t)
	home := cli.SolveHome(t, srv, r, "")
	res := cli.Cra(t, home, "", "--json", "solve", "--repo", r.Dir, "Fix add: it must return the sum")
	if res.Code != clitest.ExitOK {
		t.Fatalf("exit %d: %s\n%s", res.Code, res.Stderr, res.Stdout)
	}
	var out struct {
		TaskID string   `json:"task_id"`
		Status string   `json:"status"`
		Branch string   `json:"branch"`
		Diff   string   `json:"diff"`
		Files  []string `json:"files"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil {
		t.Fatal(err)
	}
	if out.Status != "complete" || !strings.Contains(out.Diff, "+    return a + b") || strings.Join(out.Files, ",") != "calc.py" {
		t.Errorf("outcome %+v", out)
	}
	if b, _ := os.ReadFile(filepath.Join(r.Dir, "calc.py")); string(b) != clitest.CalcSrc || r.Git("status", "--porcelain") != "" {
		t.Errorf("the user's checkout changed: %q", b)
	}
	if log := r.Git("log", "--format=%s", out.Branch); !strings.Contains(log, "p1/s1: Make add return the sum") {
		t.Errorf("branch log %q", log)
	}
	if _, err := os.Stat(filepath.Join(home, "worktrees", out.TaskID)); !os.IsNotExist(err) {
		t.Errorf("the worktree of the finished run is still there: %v", err)
	}
	passes := cli.SQLRows(t, home, "select p.sequence_order, p.pass_type, coalesce(p.part_id, '') as part, coalesce(p.step_id, '') as step, t.task_id, t.success from raw.orchestrator_passes p join raw.task_runs t on t.id = p.task_run_id order by 1")
	want := "sequence_order,pass_type,part,step,task_id,success\n" +
		"1,meta_plan,,," + out.TaskID + ":meta_plan,true\n" +
		"2,part_plan,p1,," + out.TaskID + ":part_plan:p1,true\n" +
		"3,step_implement,p1,s1," + out.TaskID + ":impl:p1:s1,true\n" +
		"4,adjustment,p1,s1," + out.TaskID + ":adjust:p1:after_s1,true\n"
	if passes != want {
		t.Errorf("passes:\n%s\nwant\n%s", passes, want)
	}
	if got := cli.SQLRows(t, home, "select status, total_parts, total_steps, parts_completed, steps_completed, completed_at is not null from raw.orchestrator_runs"); got != "status,total_parts,total_steps,parts_completed,steps_completed,(completed_at IS NOT NULL)\ncomplete,1,1,1,1,true\n" {
		t.Errorf("orchestrator_runs %q", got)
	}
	if got := cli.SQLRows(t, home, "select mode, success, final_diff like '%return a + b%' from raw.task_runs where task_id = '"+out.TaskID+"'"); got != "mode,success,(final_diff ~~ '%return a + b%')\nsolve,true,true\n" {
		t.Errorf("the run's task_runs row %q", got)
	}
	if got := cli.SQLRows(t, home, "select a.attempt, a.patch_applied, v.success, len(v.failing_tests) from raw.run_attempts a join raw.validation_results v on v.attempt_id = a.id"); got != "attempt,patch_applied,success,len(v.failing_tests)\n1,true,true,0\n" {
		t.Errorf("attempts %q", got)
	}
	// Every pass is a pipeline invocation: retrieval's calls under its id.
	if got := cli.SQLRows(t, home, "select count(distinct task_id) from raw.retrieval_llm_calls where call_type = 'scope'"); got != "count(DISTINCT task_id)\n4\n" {
		t.Errorf("scope calls per pass %q", got)
	}
	// The trace view walks the run.
	if got := cli.SQLRows(t, home, "select count(*) filter (where kind = 'call'), count(*) filter (where kind = 'attempt') from raw.solve_trace where run_task_id = '"+out.TaskID+"'"); !strings.HasSuffix(got, ",1\n") || strings.HasPrefix(strings.Split(got, "\n")[1], "0,") {
		t.Errorf("solve_trace %q", got)
	}
	if entries, _ := os.ReadDir(filepath.Join(home, "sessions")); len(entries) != 0 {
		t.Errorf("sessions left: %v", entries)
	}
	if got := cli.SQLRows(t, home, "select count(*) from raw.session_archives where task_id = '"+out.TaskID+"'"); got != "count_star()\n1\n" {
		t.Errorf("the run's session is not archived: %q", got)
	}
}

// A failing test, then a retry that passes: the retry's prompt carries the
// failure; then two steps where the first fails twice: partial, exit 1.
func TestSolveRetryAndPartial(t *testing.T) {
	t.Parallel()
	s := &clitest.SolveScript{Meta: clitest.OnePart, Part: clitest.OneStep, Implement: []string{clitest.BreakAdd, clitest.FixAdd}}
	srv := s.Server(t)
	r := clitest.CalcRepo(t)
	home := cli.SolveHome(t, srv, r, "")
	if res := cli.Cra(t, home, "", "solve", "--repo", r.Dir, "Fix add"); res.Code != clitest.ExitOK || !strings.Contains(res.Stdout, "ok   p1/s1 (2 attempt(s))") {
		t.Fatalf("exit %d: %s\n%s", res.Code, res.Stderr, res.Stdout)
	}
	if len(s.Prompts("implement")) != 2 || !strings.Contains(s.Prompts("implement")[1], "<previous_attempt_failed>") ||
		!strings.Contains(s.Prompts("implement")[1], "tests.test_calc.TestCalc.test_add") || !strings.Contains(s.Prompts("implement")[1], "return a * b") {
		t.Errorf("the retry's prompt:\n%s", s.Prompts("implement")[len(s.Prompts("implement"))-1])
	}
	// The traceback named tests/test_calc.py, outside the context: the
	// retry re-entered retrieval with it, and its prompt shows the test.
	if got := cli.SQLRows(t, home, "select task_id like '%:retry_1' as retry, response from raw.retrieval_llm_calls where call_type = 'refinement_merge'"); !strings.Contains(got, "true,\"added:\ntests/test_calc.py (refinement: names tests/test_calc.py)") {
		t.Errorf("refinement rows %q", got)
	}
	if p := s.Prompts("implement"); !strings.Contains(p[1], "Context (read only):") || !strings.Contains(p[1], "\ntests/test_calc.py\n") {
		t.Errorf("the retry's context lacks the failing test's file:\n%s", p[1])
	}
	if r.Git("status", "--porcelain") != "" {
		t.Error("the user's checkout changed")
	}
	if got := cli.SQLRows(t, home, "select t.task_id like '%:retry_1' as retry, a.attempt, a.patch_applied, v.success, v.failing_tests from raw.run_attempts a join raw.validation_results v on v.attempt_id = a.id join raw.task_runs t on t.id = a.task_run_id order by a.id"); got != "retry,attempt,patch_applied,success,failing_tests\nfalse,1,true,false,\"[\"\"tests.test_calc.TestCalc.test_add\"\"]\"\ntrue,2,true,true,[]\n" {
		t.Errorf("attempts:\n%s", got)
	}

	// Two steps: s1 passes, s2 fails twice (its edits break add again).
	twoSteps := `{"part_id": "p1", "task_summary": "", "steps": [{"id": "s1", "description": "Make add return the sum", "target_files": ["calc.py"], "target_symbols": [], "depends_on": []}, {"id": "s2", "description": "Document double", "target_files": ["calc.py"], "target_symbols": [], "depends_on": []}], "rationale": ""}`
	breakAgain := "<edit file=\"calc.py\">\n<search>\n    return a + b\n</search>\n<replacement>\n    return a * b\n</replacement>\n</edit>"
	keep := `{"revised_steps": [{"id": "s2", "keep": true}], "rationale": "on to s2", "changes_made": []}`
	s2 := &clitest.SolveScript{Meta: clitest.OnePart, Part: twoSteps, Implement: []string{clitest.FixAdd, breakAgain, breakAgain}, Adjust: []string{keep, `{"revised_steps": [], "rationale": "", "changes_made": []}`}}
	srv2 := s2.Server(t)
	home2 := cli.SolveHome(t, srv2, r, "")
	res := cli.Cra(t, home2, "", "solve", "--repo", r.Dir, "Fix add and document double")
	if res.Code != clitest.ExitFailures || !strings.Contains(res.Stdout, ": partial") || !strings.Contains(res.Stdout, "FAIL p1/s2 (2 attempt(s))") || !strings.Contains(res.Stdout, "ok   p1/s1") {
		t.Fatalf("exit %d: %s\n%s", res.Code, res.Stderr, res.Stdout)
	}
	// The failed step left nothing behind: the branch holds s1 only.
	if got := cli.SQLRows(t, home2, "select final_diff like '%return a + b%' and final_diff not like '%a * b%' from raw.task_runs where mode = 'solve'"); !strings.HasSuffix(got, "\ntrue\n") {
		t.Errorf("final diff %q", got)
	}
	if got := cli.SQLRows(t, home2, "select status, steps_completed, total_steps from raw.orchestrator_runs"); got != "status,steps_completed,total_steps\npartial,1,2\n" {
		t.Errorf("orchestrator_runs %q", got)
	}
	// The adjustment saw the failure.
	if p := s2.Prompts("adjustment"); len(p) != 2 || !strings.Contains(p[1], "tests failed after 2 attempt(s)") {
		t.Errorf("adjustment prompts %q", p)
	}
	// The adjustment kept s2 by its id: s2 reached implement as planned.
	if p := s2.Prompts("implement"); len(p) < 2 || !strings.Contains(p[1], "Step s2 to implement now:\nDocument double\nFiles: calc.py\n") {
		t.Errorf("s2's implement prompts %q", p)
	}
}

// Parts run in dependency order; --meta-plan skips the meta-plan pass;
// --plan runs one implement pass and no orchestrator rows; --apply brings
// the change in, or refuses naming the conflicting path.
func TestSolvePlansOrderAndApply(t *testing.T) {
	t.Parallel()
	twoParts := `{"task_summary": "", "parts": [{"id": "p2", "description": "Document double", "affected_files": ["calc.py"], "depends_on": ["p1"]}, {"id": "p1", "description": "Fix add", "affected_files": ["calc.py"], "depends_on": []}], "rationale": ""}`
	s := &clitest.SolveScript{Meta: twoParts, Part: clitest.OneStep, Implement: []string{clitest.FixAdd, "<edit file=\"util.py\">\n<search>\n    return 1\n</search>\n<replacement>\n    return 2\n</replacement>\n</edit>"}}
	srv := s.Server(t)
	r := clitest.CalcRepo(t)
	home := cli.SolveHome(t, srv, r, "")
	if res := cli.Cra(t, home, "", "solve", "--repo", r.Dir, "Fix add, then the rest"); res.Code != clitest.ExitOK {
		t.Fatalf("exit %d: %s\n%s", res.Code, res.Stderr, res.Stdout)
	}
	if got := cli.SQLRows(t, home, "select string_agg(coalesce(part_id, '-') || ':' || pass_type, ' ' order by sequence_order) from raw.orchestrator_passes"); !strings.Contains(got, "-:meta_plan p1:part_plan p1:step_implement p1:adjustment p2:part_plan") {
		t.Errorf("pass order %q", got)
	}

	// --meta-plan: no meta_plan pass.
	metaFile := filepath.Join(t.TempDir(), "meta.json")
	if err := os.WriteFile(metaFile, []byte(clitest.OnePart), 0o644); err != nil {
		t.Fatal(err)
	}
	s2 := &clitest.SolveScript{Meta: "never asked", Part: clitest.OneStep, Implement: []string{clitest.FixAdd}}
	home2 := cli.SolveHome(t, s2.Server(t), r, "")
	if res := cli.Cra(t, home2, "", "solve", "--repo", r.Dir, "--meta-plan", metaFile, "Fix add"); res.Code != clitest.ExitOK || s2.Count("meta_plan") != 0 {
		t.Fatalf("--meta-plan: exit %d, %d meta calls: %s", res.Code, s2.Count("meta_plan"), res.Stderr)
	}
	if res := cli.Cra(t, home2, "", "solve", "--repo", r.Dir, "--meta-plan", metaFile, "--plan", metaFile, "x"); res.Code != clitest.ExitUsage {
		t.Errorf("--plan with --meta-plan: exit %d", res.Code)
	}

	// --plan: one implement pass, no orchestrator rows, no plan passes; --apply.
	plan := schema.PlanArtifact{TaskSummary: "fix add", AffectedFiles: []schema.PlanFile{{Path: "calc.py", Role: "modify",
		Changes: []schema.PlanChange{{Symbol: "add", Action: "modify", Description: "return the sum"}}}}, ExecutionOrder: []string{"calc.py"}, Rationale: "r"}
	planFile := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(planFile, []byte(prompt.RenderPlan(plan)), 0o644); err != nil {
		t.Fatal(err)
	}
	s3 := &clitest.SolveScript{Implement: []string{clitest.FixAdd}}
	home3 := cli.SolveHome(t, s3.Server(t), r, "")
	r.Write("calc.py", "def add(a, b):\n    return a - b  # mine\n\n\ndef double(x):\n    return 2 * x\n")
	res := cli.Cra(t, home3, "", "solve", "--repo", r.Dir, "--plan", planFile, "--apply", "Fix add")
	if res.Code != clitest.ExitFailures || !strings.Contains(res.Stderr, "conflicts in calc.py") {
		t.Fatalf("--apply on a conflicting tree: exit %d: %s", res.Code, res.Stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(r.Dir, "calc.py")); !strings.Contains(string(b), "# mine") {
		t.Errorf("the refused apply changed calc.py: %q", b)
	}
	r.Write("calc.py", clitest.CalcSrc)
	if res := cli.Cra(t, home3, "", "solve", "--repo", r.Dir, "--plan", planFile, "--apply", "Fix add"); res.Code != clitest.ExitOK || !strings.Contains(res.Stdout, "applied to your working tree") {
		t.Fatalf("--apply: exit %d: %s", res.Code, res.Stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(r.Dir, "calc.py")); !strings.Contains(string(b), "return a + b") {
		t.Errorf("not applied: %q", b)
	}
	if s3.Count("meta_plan")+s3.Count("part_plan")+s3.Count("adjustment") != 0 {
		t.Errorf("--plan made plan passes: %v", s3.Calls())
	}
	if got := cli.SQLRows(t, home3, "select (select count(*) from raw.orchestrator_runs), (select count(*) from raw.orchestrator_passes), (select count(*) from raw.task_runs where mode = 'implement')"); !strings.HasSuffix(got, "\n0,0,") && !strings.Contains(got, "\n0,0,") {
		t.Errorf("--plan rows %q", got)
	}
}

// Malformed answers and edits outside the worktree are failed attempts,
// recorded with their answers; nothing outside the worktree is written.
func TestSolveRefusesBadEdits(t *testing.T) {
	t.Parallel()
	escape := "<edit file=\"../outside.py\">\n<search>\n</search>\n<replacement>\nx = 1\n</replacement>\n</edit>"
	s := &clitest.SolveScript{Meta: clitest.OnePart, Part: clitest.OneStep, Implement: []string{"I would change add.", escape}}
	srv := s.Server(t)
	r := clitest.CalcRepo(t)
	home := cli.SolveHome(t, srv, r, "")
	res := cli.Cra(t, home, "", "solve", "--repo", r.Dir, "Fix add")
	if res.Code != clitest.ExitFailures || !strings.Contains(res.Stdout, ": failed") {
		t.Fatalf("exit %d: %s\n%s", res.Code, res.Stderr, res.Stdout)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(r.Dir), "outside.py")); !os.IsNotExist(err) {
		t.Errorf("an edit escaped the worktree: %v", err)
	}
	if got := cli.SQLRows(t, home, "select attempt, patch_applied, raw_response like 'I would%' or raw_response like '%../outside.py%' from raw.run_attempts order by id"); got != "attempt,patch_applied,((raw_response ~~ 'I would%') OR (raw_response ~~ '%../outside.py%'))\n1,false,true\n2,false,true\n" {
		t.Errorf("attempts %q", got)
	}
	if p := s.Prompts("implement"); len(p) != 2 || !strings.Contains(p[1], "escapes the worktree") && !strings.Contains(p[1], "no <edit") {
		t.Errorf("the retry prompt does not say why: %q", p)
	}
}

// A step naming files behind committed links out of the repository — a
// linked file, a file in a linked directory — is implemented without
// them: their content reaches no prompt and no row, and the run says
// which files it did not show.
func TestSolveReadsStayInTheWorktree(t *testing.T) {
	step := `{"part_id": "p1", "task_summary": "fix add", "steps": [{"id": "s1", "description": "Make add return the sum", "target_files": ["calc.py", "link.txt", "linkdir/secret.txt"], "target_symbols": ["add"], "depends_on": []}], "rationale": "small"}`
	s := &clitest.SolveScript{Meta: clitest.OnePart, Part: step, Implement: []string{clitest.FixAdd}}
	srv := s.Server(t)
	r := clitest.CalcRepo(t)
	r.LinkOutside()
	home := cli.SolveHome(t, srv, r, "")
	res := cli.Cra(t, home, "", "solve", "--repo", r.Dir, "Fix add")
	if res.Code != clitest.ExitOK {
		t.Fatalf("exit %d: %s\n%s", res.Code, res.Stderr, res.Stdout)
	}
	for _, f := range []string{"link.txt", "linkdir/secret.txt"} {
		if !strings.Contains(res.Stdout, "note: part p1, step s1: "+f+" not shown to the model (outside_worktree)") {
			t.Errorf("no note of %s: %s", f, res.Stdout)
		}
	}
	if p := s.Prompts("implement"); len(p) != 1 || !strings.Contains(p[0], clitest.CalcSrc) {
		t.Fatalf("implement prompts %q", p)
	}
	for kind := range s.Calls() {
		for _, p := range s.Prompts(kind) {
			if strings.Contains(p, "TOPSECRET") {
				t.Errorf("a %s prompt holds the outside file: %q", kind, p)
			}
		}
	}
	if got := cli.SQLRows(t, home, `select (select count(*) from raw.retrieval_llm_calls where contains(prompt, 'TOPSECRET') or contains(response, 'TOPSECRET')),
		(select count(*) from raw.session_archives where contains(decode(session_blob), 'TOPSECRET')),
		(select count(*) from raw.retrieval_llm_calls where call_type = 'implement') > 0 and (select count(*) from raw.session_archives) > 0`); !strings.HasSuffix(got, "\n0,0,true\n") {
		t.Errorf("the outside file in the raw store, or nothing logged: %q", got)
	}
}

// Without a test command, cra solve refuses to start (exit 2).
func TestSolveNeedsATestCommand(t *testing.T) {
	s := &clitest.SolveScript{}
	srv := s.Server(t)
	home := cli.ModelHome(t, srv.OllamaURL())
	r := clitest.CalcRepo(t)
	cli.MustRun(t, home, "index", r.Dir)
	res := cli.Cra(t, home, "", "solve", "--repo", r.Dir, "Fix add")
	if res.Code != clitest.ExitUsage || !strings.Contains(res.Stderr, "cra solve needs a test command: add [testing] test_command to config.toml or a per-repository one") {
		t.Errorf("exit %d: %s", res.Code, res.Stderr)
	}
	if res := cli.Cra(t, home, "", "solve", "--resume", "solve-nope"); res.Code != clitest.ExitUsage || !strings.Contains(res.Stderr, "no unfinished run") {
		t.Errorf("--resume of nothing: exit %d: %s", res.Code, res.Stderr)
	}
}

// A retry that leaves the same files as an attempt whose tests did not end
// in time is not tested again (it would hang as long): the step fails
// after one timeout, not two, and the retry's validation row says why.
func TestSolveDoesNotRetestATreeWhoseTestsTimedOut(t *testing.T) {
	t.Parallel()
	s := &clitest.SolveScript{Meta: clitest.OnePart, Part: clitest.OneStep, Implement: []string{clitest.BreakAdd}}
	srv := s.Server(t)
	r := clitest.CalcRepo(t)
	home := cli.SolveHome(t, srv, r, "")
	runs := filepath.Join(t.TempDir(), "runs")
	cfgPath := filepath.Join(home, "config.toml")
	cfg, _ := os.ReadFile(cfgPath)
	// Counted outside the worktree, which only an unconfined test can write.
	hang := fmt.Sprintf("test_command = \"echo run >> %s; sleep 60\"\ntimeout_seconds = 2\nsandbox = \"none\"\n", runs)
	cfg = []byte(strings.Replace(string(cfg), "test_command = \""+clitest.TestCalc+"\"\ntimeout_seconds = 60\n", hang, 1))
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	res := cli.Cra(t, home, "", "solve", "--repo", r.Dir, "Fix add: it must return the sum")
	if res.Code != clitest.ExitFailures {
		t.Fatalf("exit %d, want 1 (the step failed)\n%s", res.Code, res.Stderr)
	}
	if s.Count("implement") != 2 {
		t.Errorf("%d implement calls, want the attempt and its retry", s.Count("implement"))
	}
	if b, _ := os.ReadFile(runs); strings.Count(string(b), "run") != 1 {
		t.Errorf("the test command ran %d times, want once", strings.Count(string(b), "run"))
	}
	if got := cli.SQLRows(t, home, "select count(*) filter (where contains(test_output, 'not run again')) as skipped, count(*) as rows from raw.validation_results"); got != "skipped,rows\n1,2\n" {
		t.Errorf("validation rows: %q", got)
	}
}

// The value of models.api_key_env, repeated by the model (a plan's
// rationale, an edit that makes a test print it, a comment the final diff
// keeps), is masked in every row solve stores, not only in the logged
// calls: attempts' raw answers, test output, the final diff, the session
// archives.
func TestSolveMasksTheKeyInEveryRow(t *testing.T) {
	const keyEnv, key = "CRA_TEST_SOLVE_KEY", "sk-solve-4f9a2c7e1b-SECRET"
	t.Setenv(keyEnv, key)
	leak := "<edit file=\"calc.py\">\n<search>\n    return a - b\n</search>\n<replacement>\n    return '" + key + "'\n</replacement>\n</edit>"
	fix := "<edit file=\"calc.py\">\n<search>\n    return a - b\n</search>\n<replacement>\n    return a + b  # " + key + "\n</replacement>\n</edit>"
	s := &clitest.SolveScript{Meta: strings.Replace(clitest.OnePart, "one place", "one place "+key, 1), Part: clitest.OneStep, Implement: []string{leak, fix}}
	srv := s.Server(t)
	r := clitest.CalcRepo(t)
	home := cli.SolveHome(t, srv, r, "")
	cfgPath := filepath.Join(home, "config.toml")
	cfg, _ := os.ReadFile(cfgPath)
	os.WriteFile(cfgPath, []byte(strings.Replace(string(cfg), "[models]\n", "[models]\napi_key_env = \""+keyEnv+"\"\n", 1)), 0o644) //nolint:errcheck
	res := cli.Cra(t, home, "", "--json", "solve", "--repo", r.Dir, "Fix add: it must return the sum")
	if res.Code != clitest.ExitOK {
		t.Fatalf("solve: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	if n := cli.SQLRows(t, home, "select count(*) from raw.validation_results where test_output like '%[REDACTED]%' or test_output like '%"+key+"%'"); n == "count_star()\n0\n" {
		t.Fatal("no test output carried the key: the test proves nothing")
	}
	for _, table := range []string{"run_attempts", "validation_results", "task_runs", "session_archives", "retrieval_llm_calls"} {
		if out := cli.MustRun(t, home, "sql", "--format", "jsonl", "from raw."+table); strings.Contains(out, key) {
			t.Errorf("raw.%s holds the key", table)
		}
	}
}

// A model-written test that writes outside the worktree: in the default
// sandbox (bubblewrap) the write fails, so do the tests, and nothing
// lands outside; with sandbox = "none" it lands, and the run says once
// that its tests ran unconfined.
func TestSolveTestsRunInTheirBox(t *testing.T) {
	for _, tc := range []struct {
		sandbox string
		escapes bool
	}{{"auto", false}, {"none", true}} {
		t.Run(tc.sandbox, func(t *testing.T) {
			if !tc.escapes {
				needBubblewrap(t)
			}
			escaped := filepath.Join(t.TempDir(), "escaped_by_test.txt")
			writeOutside := "<edit file=\"tests/test_calc.py\">\n<search>\n        self.assertEqual(add(1, 2), 3)\n</search>\n<replacement>\n" +
				"        open(" + strconv.Quote(escaped) + ", 'w').write('x')\n        self.assertEqual(add(1, 2), 3)\n</replacement>\n</edit>"
			s := &clitest.SolveScript{Meta: clitest.OnePart, Part: clitest.OneStep, Implement: []string{clitest.FixAdd + "\n" + writeOutside}}
			srv := s.Server(t)
			r := clitest.CalcRepo(t)
			home := cli.SolveHome(t, srv, r, "sandbox = \""+tc.sandbox+"\"\n")
			res := cli.Cra(t, home, "", "solve", "--repo", r.Dir, "Fix add")
			_, err := os.Stat(escaped)
			if landed := err == nil; landed != tc.escapes {
				t.Fatalf("the write outside the worktree landed: %v, want %v (exit %d)\n%s", landed, tc.escapes, res.Code, res.Stdout)
			}
			warning := `tests run unconfined ([testing] sandbox = "none")`
			if n := strings.Count(res.Stdout, warning); tc.escapes && (res.Code != clitest.ExitOK || n != 1) || !tc.escapes && (res.Code == clitest.ExitOK || n != 0) {
				t.Errorf("exit %d, the warning said %d times:\n%s\n%s", res.Code, n, res.Stdout, res.Stderr)
			}
			if !tc.escapes {
				if got := cli.SQLRows(t, home, `select count(*) from raw.validation_results where contains(test_output, 'escaped_by_test.txt')`); got == "count_star()\n0\n" {
					t.Errorf("the failed write is not in the validation output")
				}
			}
		})
	}
}

// sandbox = "bwrap" where bubblewrap cannot run: cra solve stops before
// its first row, session or worktree (exit 2), naming the setting.
func TestSolveRefusesWithoutTheSandboxItWasToldToUse(t *testing.T) {
	s := &clitest.SolveScript{Meta: clitest.OnePart, Part: clitest.OneStep, Implement: []string{clitest.FixAdd}}
	srv := s.Server(t)
	r := clitest.CalcRepo(t)
	home := cli.SolveHome(t, srv, r, "sandbox = \"bwrap\"\n")
	bin := t.TempDir() // git and sh, no bwrap
	for _, tool := range []string{"git", "sh"} {
		path, err := exec.LookPath(tool)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(path, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	res := cli.Cra(t, home, "", "solve", "--repo", r.Dir, "Fix add")
	if res.Code != clitest.ExitUsage || !strings.Contains(res.Stderr, "testing.sandbox") || !strings.Contains(res.Stderr, "install bubblewrap") {
		t.Errorf("exit %d: %s", res.Code, res.Stderr)
	}
	checkNothingLeft(t, home, r)
}

// Credentials a repository holds never reach a remote_api provider: the
// implement prompt quotes a file with an AWS key id and a GitHub token,
// and the request bodies the server receives, and the logged calls, have
// them redacted ([curate] secrets' patterns).
func TestSolveRedactsCredentialsSentToARemoteAPI(t *testing.T) {
	const keyEnv = "CRA_TEST_REMOTE_KEY"
	t.Setenv(keyEnv, "sk-remote-test-key-0123456789")
	planted := []string{"AKIAIOSFODNN7EXAMPLE", "ghp_" + strings.Repeat("a1B2c3", 6)}
	s := &clitest.SolveScript{Meta: clitest.OnePart, Part: clitest.OneStep, Implement: []string{clitest.FixAdd}}
	srv := s.Server(t)
	r := clitest.CalcRepo(t)
	r.Write("calc.py", clitest.CalcSrc+"\n\nAWS_ACCESS_KEY_ID = \""+planted[0]+"\"\nGITHUB_TOKEN = \""+planted[1]+"\"\n")
	r.Commit("keys in calc")
	home := cli.SolveHome(t, srv, r, "")
	cfgPath := filepath.Join(home, "config.toml")
	cfg, _ := os.ReadFile(cfgPath)
	remote := strings.Replace(string(cfg), `provider = "ollama"`, `provider = "remote_api"`, 1)
	remote = strings.Replace(remote, `base_url = "`+srv.OllamaURL()+`"`, `base_url = "`+srv.OpenAIURL()+`"`+"\napi_key_env = \""+keyEnv+"\"", 1)
	if err := os.WriteFile(cfgPath, []byte(remote), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := cli.Cra(t, home, "", "solve", "--repo", r.Dir, "Fix add: it must return the sum"); res.Code != clitest.ExitOK {
		t.Fatalf("solve: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	var implement int
	for _, req := range srv.Requests() {
		body := string(req.Body)
		for _, p := range planted {
			if strings.Contains(body, p) {
				t.Errorf("a request to %s carried %s", req.Path, p)
			}
		}
		if strings.Contains(body, "You implement a code change") {
			implement++
			if !strings.Contains(body, "AWS_ACCESS_KEY_ID = \\\"[REDACTED]\\\"") {
				t.Errorf("the implement request does not quote calc.py redacted: the test proves nothing\n%.2000s", body)
			}
		}
	}
	if implement == 0 {
		t.Fatal("no implement request reached the server")
	}
	calls := cli.MustRun(t, home, "sql", "--format", "jsonl", "from raw.retrieval_llm_calls")
	for _, p := range planted {
		if strings.Contains(calls, p) {
			t.Errorf("raw.retrieval_llm_calls holds %s", p)
		}
	}
}

// needBubblewrap skips a test of the sandbox where bubblewrap cannot run,
// saying why.
func needBubblewrap(t *testing.T) {
	t.Helper()
	if _, err := orchestrator.NewBox(config.Testing{Sandbox: config.SandboxBwrap}, nil, ""); err != nil {
		t.Skipf("%v (CI installs bubblewrap)", err)
	}
}
