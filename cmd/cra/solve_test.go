package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cra-dev/cra/agent/orchestrator"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/kb/schema"
)

// solveScript answers each kind of call of a solve run. Implement answers
// are taken in turn (the last one repeats); nil kinds get defaults.
type solveScript struct {
	meta, part string
	analysis   []string // task analysis answers; nil: one naming calc.py
	implement  []string
	adjust     []string
	mu         sync.Mutex
	calls      map[string]int
	prompts    map[string][]string
}

func (s *solveScript) server(t *testing.T) *fakellm.Server {
	srv := fakellm.New(t)
	s.install(t, srv)
	return srv
}

// install makes srv answer with the script.
func (s *solveScript) install(t testing.TB, srv *fakellm.Server) {
	s.calls, s.prompts = map[string]int{}, map[string][]string{}
	srv.SetDefault(func(req fakellm.Request) fakellm.Reply {
		if isPing(req) {
			return fakellm.Reply{Text: "ok"}
		}
		system := req.Messages[0].Content
		user := req.Messages[len(req.Messages)-1].Content
		s.mu.Lock()
		defer s.mu.Unlock()
		take := func(kind string, answers []string, def string) fakellm.Reply {
			n := s.calls[kind]
			s.calls[kind]++
			s.prompts[kind] = append(s.prompts[kind], user)
			switch {
			case len(answers) == 0:
				return fakellm.Reply{Text: def}
			case n < len(answers):
				return fakellm.Reply{Text: answers[n]}
			}
			return fakellm.Reply{Text: answers[len(answers)-1]}
		}
		switch {
		case strings.HasPrefix(system, "You read a coding task"):
			return take("task_analysis", s.analysis, `{"summary": "", "files": ["calc.py"], "symbols": ["add"], "keywords": []}`)
		case strings.HasPrefix(system, "You select the files"):
			return take("scope", nil, `{"relevant": ["calc.py", "util.py"]}`)
		case strings.HasPrefix(system, "You decide how much"):
			return take("precision", nil, `{"symbols": {"calc.py:add": "primary"}}`)
		case strings.HasPrefix(system, "You split a large task"):
			return take("meta_plan", nil, s.meta)
		case strings.HasPrefix(system, "You plan one part"):
			return take("part_plan", nil, s.part)
		case strings.HasPrefix(system, "You implement a code change"):
			return take("implement", s.implement, "")
		case strings.HasPrefix(system, "You revise a plan"):
			return take("adjustment", s.adjust, `{"revised_steps": [], "rationale": "nothing left", "changes_made": []}`)
		}
		t.Errorf("unexpected system prompt %.60q", system)
		return fakellm.Reply{Status: 500}
	})
}

func (s *solveScript) count(kind string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[kind]
}

const (
	onePart   = `{"task_summary": "fix add", "parts": [{"id": "p1", "description": "Fix add in calc.py", "affected_files": ["calc.py"], "depends_on": []}], "rationale": "one place"}`
	oneStep   = `{"part_id": "p1", "task_summary": "fix add", "steps": [{"id": "s1", "description": "Make add return the sum", "target_files": ["calc.py"], "target_symbols": ["add"], "depends_on": []}], "rationale": "small"}`
	fixAdd    = "<edit file=\"calc.py\">\n<search>\n    return a - b\n</search>\n<replacement>\n    return a + b\n</replacement>\n</edit>"
	breakAdd  = "<edit file=\"calc.py\">\n<search>\n    return a - b\n</search>\n<replacement>\n    return a * b\n</replacement>\n</edit>"
	testCalc  = "python3 -m unittest discover -s tests -t ."
	calcSrc   = "def add(a, b):\n    return a - b\n\n\ndef double(x):\n    return 2 * x\n"
	calcTests = "import unittest\n\nfrom calc import add, double\n\n\nclass TestCalc(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n\n    def test_double(self):\n        self.assertEqual(double(2), 4)\n"
)

// calcRepo is a small Python project whose add is wrong, with its tests.
func calcRepo(t testing.TB) *gittest.Repo {
	r := gittest.New(t)
	r.Write("calc.py", calcSrc)
	r.Write("util.py", "def helper():\n    return 1\n")
	r.Write("tests/__init__.py", "")
	r.Write("tests/test_calc.py", calcTests)
	r.Commit("calc with a wrong add")
	return r
}

// solveHome is an initialised, indexed home whose models are srv and whose
// test command runs the repository's unittest suite.
func solveHome(t *testing.T, srv *fakellm.Server, r *gittest.Repo, extra string) string {
	home := modelHome(t, srv.OllamaURL())
	cfgPath := filepath.Join(home, "config.toml")
	cfg, _ := os.ReadFile(cfgPath)
	cfg = []byte(strings.Replace(string(cfg), "[testing]\n", "[testing]\ntest_command = \""+testCalc+"\"\ntimeout_seconds = 60\n"+extra, 1))
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, home, "index", r.Dir)
	return home
}

// sqlRows runs queries in one cra sql (one attach of the stores, which
// costs more than most queries): CSV, a blank line between result sets.
func sqlRows(t testing.TB, home string, queries ...string) string {
	t.Helper()
	return craCLI.SQLRows(t, home, queries...)
}

// One part, one step, right at the first try: complete, exit 0, a commit
// on the run's branch, the user's checkout untouched, every row written.
func TestSolveOneStep(t *testing.T) {
	t.Parallel()
	s := &solveScript{meta: onePart, part: oneStep, implement: []string{fixAdd}}
	srv := s.server(t)
	r := calcRepo(t)
	home := solveHome(t, srv, r, "")
	res := cra(t, home, "", "--json", "solve", "--repo", r.Dir, "Fix add: it must return the sum")
	if res.code != exitOK {
		t.Fatalf("exit %d: %s\n%s", res.code, res.stderr, res.stdout)
	}
	var out struct {
		TaskID string   `json:"task_id"`
		Status string   `json:"status"`
		Branch string   `json:"branch"`
		Diff   string   `json:"diff"`
		Files  []string `json:"files"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
		t.Fatal(err)
	}
	if out.Status != "complete" || !strings.Contains(out.Diff, "+    return a + b") || strings.Join(out.Files, ",") != "calc.py" {
		t.Errorf("outcome %+v", out)
	}
	if b, _ := os.ReadFile(filepath.Join(r.Dir, "calc.py")); string(b) != calcSrc || r.Git("status", "--porcelain") != "" {
		t.Errorf("the user's checkout changed: %q", b)
	}
	if log := r.Git("log", "--format=%s", out.Branch); !strings.Contains(log, "p1/s1: Make add return the sum") {
		t.Errorf("branch log %q", log)
	}
	if _, err := os.Stat(filepath.Join(home, "worktrees", out.TaskID)); !os.IsNotExist(err) {
		t.Errorf("the worktree of the finished run is still there: %v", err)
	}
	passes := sqlRows(t, home, "select p.sequence_order, p.pass_type, coalesce(p.part_id, '') as part, coalesce(p.step_id, '') as step, t.task_id, t.success from raw.orchestrator_passes p join raw.task_runs t on t.id = p.task_run_id order by 1")
	want := "sequence_order,pass_type,part,step,task_id,success\n" +
		"1,meta_plan,,," + out.TaskID + ":meta_plan,true\n" +
		"2,part_plan,p1,," + out.TaskID + ":part_plan:p1,true\n" +
		"3,step_implement,p1,s1," + out.TaskID + ":impl:p1:s1,true\n" +
		"4,adjustment,p1,s1," + out.TaskID + ":adjust:p1:after_s1,true\n"
	if passes != want {
		t.Errorf("passes:\n%s\nwant\n%s", passes, want)
	}
	if got := sqlRows(t, home, "select status, total_parts, total_steps, parts_completed, steps_completed, completed_at is not null from raw.orchestrator_runs"); got != "status,total_parts,total_steps,parts_completed,steps_completed,(completed_at IS NOT NULL)\ncomplete,1,1,1,1,true\n" {
		t.Errorf("orchestrator_runs %q", got)
	}
	if got := sqlRows(t, home, "select mode, success, final_diff like '%return a + b%' from raw.task_runs where task_id = '"+out.TaskID+"'"); got != "mode,success,(final_diff ~~ '%return a + b%')\nsolve,true,true\n" {
		t.Errorf("the run's task_runs row %q", got)
	}
	if got := sqlRows(t, home, "select a.attempt, a.patch_applied, v.success, len(v.failing_tests) from raw.run_attempts a join raw.validation_results v on v.attempt_id = a.id"); got != "attempt,patch_applied,success,len(v.failing_tests)\n1,true,true,0\n" {
		t.Errorf("attempts %q", got)
	}
	// Every pass is a pipeline invocation: retrieval's calls under its id.
	if got := sqlRows(t, home, "select count(distinct task_id) from raw.retrieval_llm_calls where call_type = 'scope'"); got != "count(DISTINCT task_id)\n4\n" {
		t.Errorf("scope calls per pass %q", got)
	}
	// The trace view walks the run.
	if got := sqlRows(t, home, "select count(*) filter (where kind = 'call'), count(*) filter (where kind = 'attempt') from raw.solve_trace where run_task_id = '"+out.TaskID+"'"); !strings.HasSuffix(got, ",1\n") || strings.HasPrefix(strings.Split(got, "\n")[1], "0,") {
		t.Errorf("solve_trace %q", got)
	}
	if entries, _ := os.ReadDir(filepath.Join(home, "sessions")); len(entries) != 0 {
		t.Errorf("sessions left: %v", entries)
	}
	if got := sqlRows(t, home, "select count(*) from raw.session_archives where task_id = '"+out.TaskID+"'"); got != "count_star()\n1\n" {
		t.Errorf("the run's session is not archived: %q", got)
	}
}

// A failing test, then a retry that passes: the retry's prompt carries the
// failure; then two steps where the first fails twice: partial, exit 1.
func TestSolveRetryAndPartial(t *testing.T) {
	t.Parallel()
	s := &solveScript{meta: onePart, part: oneStep, implement: []string{breakAdd, fixAdd}}
	srv := s.server(t)
	r := calcRepo(t)
	home := solveHome(t, srv, r, "")
	if res := cra(t, home, "", "solve", "--repo", r.Dir, "Fix add"); res.code != exitOK || !strings.Contains(res.stdout, "ok   p1/s1 (2 attempt(s))") {
		t.Fatalf("exit %d: %s\n%s", res.code, res.stderr, res.stdout)
	}
	if len(s.prompts["implement"]) != 2 || !strings.Contains(s.prompts["implement"][1], "<previous_attempt_failed>") ||
		!strings.Contains(s.prompts["implement"][1], "tests.test_calc.TestCalc.test_add") || !strings.Contains(s.prompts["implement"][1], "return a * b") {
		t.Errorf("the retry's prompt:\n%s", s.prompts["implement"][len(s.prompts["implement"])-1])
	}
	// The traceback named tests/test_calc.py, outside the context: the
	// retry re-entered retrieval with it, and its prompt shows the test.
	if got := sqlRows(t, home, "select task_id like '%:retry_1' as retry, response from raw.retrieval_llm_calls where call_type = 'refinement_merge'"); !strings.Contains(got, "true,\"added:\ntests/test_calc.py (refinement: names tests/test_calc.py)") {
		t.Errorf("refinement rows %q", got)
	}
	if p := s.prompts["implement"]; !strings.Contains(p[1], "Context (read only):") || !strings.Contains(p[1], "\ntests/test_calc.py\n") {
		t.Errorf("the retry's context lacks the failing test's file:\n%s", p[1])
	}
	if r.Git("status", "--porcelain") != "" {
		t.Error("the user's checkout changed")
	}
	if got := sqlRows(t, home, "select t.task_id like '%:retry_1' as retry, a.attempt, a.patch_applied, v.success, v.failing_tests from raw.run_attempts a join raw.validation_results v on v.attempt_id = a.id join raw.task_runs t on t.id = a.task_run_id order by a.id"); got != "retry,attempt,patch_applied,success,failing_tests\nfalse,1,true,false,\"[\"\"tests.test_calc.TestCalc.test_add\"\"]\"\ntrue,2,true,true,[]\n" {
		t.Errorf("attempts:\n%s", got)
	}

	// Two steps: s1 passes, s2 fails twice (its edits break add again).
	twoSteps := `{"part_id": "p1", "task_summary": "", "steps": [{"id": "s1", "description": "Make add return the sum", "target_files": ["calc.py"], "target_symbols": [], "depends_on": []}, {"id": "s2", "description": "Document double", "target_files": ["calc.py"], "target_symbols": [], "depends_on": []}], "rationale": ""}`
	breakAgain := "<edit file=\"calc.py\">\n<search>\n    return a + b\n</search>\n<replacement>\n    return a * b\n</replacement>\n</edit>"
	keep := `{"revised_steps": [{"id": "s2", "keep": true}], "rationale": "on to s2", "changes_made": []}`
	s2 := &solveScript{meta: onePart, part: twoSteps, implement: []string{fixAdd, breakAgain, breakAgain}, adjust: []string{keep, `{"revised_steps": [], "rationale": "", "changes_made": []}`}}
	srv2 := s2.server(t)
	home2 := solveHome(t, srv2, r, "")
	res := cra(t, home2, "", "solve", "--repo", r.Dir, "Fix add and document double")
	if res.code != exitFailures || !strings.Contains(res.stdout, ": partial") || !strings.Contains(res.stdout, "FAIL p1/s2 (2 attempt(s))") || !strings.Contains(res.stdout, "ok   p1/s1") {
		t.Fatalf("exit %d: %s\n%s", res.code, res.stderr, res.stdout)
	}
	// The failed step left nothing behind: the branch holds s1 only.
	if got := sqlRows(t, home2, "select final_diff like '%return a + b%' and final_diff not like '%a * b%' from raw.task_runs where mode = 'solve'"); !strings.HasSuffix(got, "\ntrue\n") {
		t.Errorf("final diff %q", got)
	}
	if got := sqlRows(t, home2, "select status, steps_completed, total_steps from raw.orchestrator_runs"); got != "status,steps_completed,total_steps\npartial,1,2\n" {
		t.Errorf("orchestrator_runs %q", got)
	}
	// The adjustment saw the failure.
	if p := s2.prompts["adjustment"]; len(p) != 2 || !strings.Contains(p[1], "tests failed after 2 attempt(s)") {
		t.Errorf("adjustment prompts %q", p)
	}
	// The adjustment kept s2 by its id: s2 reached implement as planned.
	if p := s2.prompts["implement"]; len(p) < 2 || !strings.Contains(p[1], "Step s2 to implement now:\nDocument double\nFiles: calc.py\n") {
		t.Errorf("s2's implement prompts %q", p)
	}
}

// Parts run in dependency order; --meta-plan skips the meta-plan pass;
// --plan runs one implement pass and no orchestrator rows; --apply brings
// the change in, or refuses naming the conflicting path.
func TestSolvePlansOrderAndApply(t *testing.T) {
	t.Parallel()
	twoParts := `{"task_summary": "", "parts": [{"id": "p2", "description": "Document double", "affected_files": ["calc.py"], "depends_on": ["p1"]}, {"id": "p1", "description": "Fix add", "affected_files": ["calc.py"], "depends_on": []}], "rationale": ""}`
	s := &solveScript{meta: twoParts, part: oneStep, implement: []string{fixAdd, "<edit file=\"util.py\">\n<search>\n    return 1\n</search>\n<replacement>\n    return 2\n</replacement>\n</edit>"}}
	srv := s.server(t)
	r := calcRepo(t)
	home := solveHome(t, srv, r, "")
	if res := cra(t, home, "", "solve", "--repo", r.Dir, "Fix add, then the rest"); res.code != exitOK {
		t.Fatalf("exit %d: %s\n%s", res.code, res.stderr, res.stdout)
	}
	if got := sqlRows(t, home, "select string_agg(coalesce(part_id, '-') || ':' || pass_type, ' ' order by sequence_order) from raw.orchestrator_passes"); !strings.Contains(got, "-:meta_plan p1:part_plan p1:step_implement p1:adjustment p2:part_plan") {
		t.Errorf("pass order %q", got)
	}

	// --meta-plan: no meta_plan pass.
	metaFile := filepath.Join(t.TempDir(), "meta.json")
	if err := os.WriteFile(metaFile, []byte(onePart), 0o644); err != nil {
		t.Fatal(err)
	}
	s2 := &solveScript{meta: "never asked", part: oneStep, implement: []string{fixAdd}}
	home2 := solveHome(t, s2.server(t), r, "")
	if res := cra(t, home2, "", "solve", "--repo", r.Dir, "--meta-plan", metaFile, "Fix add"); res.code != exitOK || s2.count("meta_plan") != 0 {
		t.Fatalf("--meta-plan: exit %d, %d meta calls: %s", res.code, s2.count("meta_plan"), res.stderr)
	}
	if res := cra(t, home2, "", "solve", "--repo", r.Dir, "--meta-plan", metaFile, "--plan", metaFile, "x"); res.code != exitUsage {
		t.Errorf("--plan with --meta-plan: exit %d", res.code)
	}

	// --plan: one implement pass, no orchestrator rows, no plan passes; --apply.
	plan := schema.PlanArtifact{TaskSummary: "fix add", AffectedFiles: []schema.PlanFile{{Path: "calc.py", Role: "modify",
		Changes: []schema.PlanChange{{Symbol: "add", Action: "modify", Description: "return the sum"}}}}, ExecutionOrder: []string{"calc.py"}, Rationale: "r"}
	planFile := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(planFile, []byte(prompt.RenderPlan(plan)), 0o644); err != nil {
		t.Fatal(err)
	}
	s3 := &solveScript{implement: []string{fixAdd}}
	home3 := solveHome(t, s3.server(t), r, "")
	r.Write("calc.py", "def add(a, b):\n    return a - b  # mine\n\n\ndef double(x):\n    return 2 * x\n")
	res := cra(t, home3, "", "solve", "--repo", r.Dir, "--plan", planFile, "--apply", "Fix add")
	if res.code != exitFailures || !strings.Contains(res.stderr, "conflicts in calc.py") {
		t.Fatalf("--apply on a conflicting tree: exit %d: %s", res.code, res.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(r.Dir, "calc.py")); !strings.Contains(string(b), "# mine") {
		t.Errorf("the refused apply changed calc.py: %q", b)
	}
	r.Write("calc.py", calcSrc)
	if res := cra(t, home3, "", "solve", "--repo", r.Dir, "--plan", planFile, "--apply", "Fix add"); res.code != exitOK || !strings.Contains(res.stdout, "applied to your working tree") {
		t.Fatalf("--apply: exit %d: %s", res.code, res.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(r.Dir, "calc.py")); !strings.Contains(string(b), "return a + b") {
		t.Errorf("not applied: %q", b)
	}
	if s3.count("meta_plan")+s3.count("part_plan")+s3.count("adjustment") != 0 {
		t.Errorf("--plan made plan passes: %v", s3.calls)
	}
	if got := sqlRows(t, home3, "select (select count(*) from raw.orchestrator_runs), (select count(*) from raw.orchestrator_passes), (select count(*) from raw.task_runs where mode = 'implement')"); !strings.HasSuffix(got, "\n0,0,") && !strings.Contains(got, "\n0,0,") {
		t.Errorf("--plan rows %q", got)
	}
}

// Malformed answers and edits outside the worktree are failed attempts,
// recorded with their answers; nothing outside the worktree is written.
func TestSolveRefusesBadEdits(t *testing.T) {
	t.Parallel()
	escape := "<edit file=\"../outside.py\">\n<search>\n</search>\n<replacement>\nx = 1\n</replacement>\n</edit>"
	s := &solveScript{meta: onePart, part: oneStep, implement: []string{"I would change add.", escape}}
	srv := s.server(t)
	r := calcRepo(t)
	home := solveHome(t, srv, r, "")
	res := cra(t, home, "", "solve", "--repo", r.Dir, "Fix add")
	if res.code != exitFailures || !strings.Contains(res.stdout, ": failed") {
		t.Fatalf("exit %d: %s\n%s", res.code, res.stderr, res.stdout)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(r.Dir), "outside.py")); !os.IsNotExist(err) {
		t.Errorf("an edit escaped the worktree: %v", err)
	}
	if got := sqlRows(t, home, "select attempt, patch_applied, raw_response like 'I would%' or raw_response like '%../outside.py%' from raw.run_attempts order by id"); got != "attempt,patch_applied,((raw_response ~~ 'I would%') OR (raw_response ~~ '%../outside.py%'))\n1,false,true\n2,false,true\n" {
		t.Errorf("attempts %q", got)
	}
	if p := s.prompts["implement"]; len(p) != 2 || !strings.Contains(p[1], "escapes the worktree") && !strings.Contains(p[1], "no <edit") {
		t.Errorf("the retry prompt does not say why: %q", p)
	}
}

// A step naming files behind committed links out of the repository — a
// linked file, a file in a linked directory — is implemented without
// them: their content reaches no prompt and no row, and the run says
// which files it did not show.
func TestSolveReadsStayInTheWorktree(t *testing.T) {
	step := `{"part_id": "p1", "task_summary": "fix add", "steps": [{"id": "s1", "description": "Make add return the sum", "target_files": ["calc.py", "link.txt", "linkdir/secret.txt"], "target_symbols": ["add"], "depends_on": []}], "rationale": "small"}`
	s := &solveScript{meta: onePart, part: step, implement: []string{fixAdd}}
	srv := s.server(t)
	r := calcRepo(t)
	r.LinkOutside()
	home := solveHome(t, srv, r, "")
	res := cra(t, home, "", "solve", "--repo", r.Dir, "Fix add")
	if res.code != exitOK {
		t.Fatalf("exit %d: %s\n%s", res.code, res.stderr, res.stdout)
	}
	for _, f := range []string{"link.txt", "linkdir/secret.txt"} {
		if !strings.Contains(res.stdout, "note: part p1, step s1: "+f+" not shown to the model (outside_worktree)") {
			t.Errorf("no note of %s: %s", f, res.stdout)
		}
	}
	if p := s.prompts["implement"]; len(p) != 1 || !strings.Contains(p[0], calcSrc) {
		t.Fatalf("implement prompts %q", p)
	}
	for kind, prompts := range s.prompts {
		for _, p := range prompts {
			if strings.Contains(p, "TOPSECRET") {
				t.Errorf("a %s prompt holds the outside file: %q", kind, p)
			}
		}
	}
	if got := sqlRows(t, home, `select (select count(*) from raw.retrieval_llm_calls where contains(prompt, 'TOPSECRET') or contains(response, 'TOPSECRET')),
		(select count(*) from raw.session_archives where contains(decode(session_blob), 'TOPSECRET')),
		(select count(*) from raw.retrieval_llm_calls where call_type = 'implement') > 0 and (select count(*) from raw.session_archives) > 0`); !strings.HasSuffix(got, "\n0,0,true\n") {
		t.Errorf("the outside file in the raw store, or nothing logged: %q", got)
	}
}

// Without a test command, cra solve refuses to start (exit 2).
func TestSolveNeedsATestCommand(t *testing.T) {
	s := &solveScript{}
	srv := s.server(t)
	home := modelHome(t, srv.OllamaURL())
	r := calcRepo(t)
	mustRun(t, home, "index", r.Dir)
	res := cra(t, home, "", "solve", "--repo", r.Dir, "Fix add")
	if res.code != exitUsage || !strings.Contains(res.stderr, "cra solve needs a test command: add [testing] test_command to config.toml or a per-repository one") {
		t.Errorf("exit %d: %s", res.code, res.stderr)
	}
	if res := cra(t, home, "", "solve", "--resume", "solve-nope"); res.code != exitUsage || !strings.Contains(res.stderr, "no unfinished run") {
		t.Errorf("--resume of nothing: exit %d: %s", res.code, res.stderr)
	}
}

// lockedBuffer is a buffer a running command writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// cra solve names its task on stderr before its first model call (after
// the preflight's ping of the models), so a run stopped before its summary
// can be resumed by the id it gave: here interrupted at its first call,
// then resumed, which says so. --json's stdout stays the outcome alone.
func TestSolveSaysItsTaskFirst(t *testing.T) {
	s := &solveScript{meta: onePart, part: oneStep, implement: []string{fixAdd}}
	srv := fakellm.New(t)
	r := calcRepo(t)
	home := solveHome(t, srv, r, "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr lockedBuffer
	var atFirstCall string // stderr when the first model call came
	var first sync.Once
	srv.SetDefault(func(req fakellm.Request) fakellm.Reply {
		if isPing(req) { // the preflight's, before the run has an id
			return fakellm.Reply{Text: "ok"}
		}
		first.Do(func() { atFirstCall = stderr.String() })
		cancel()
		return fakellm.Reply{Status: 500}
	})
	var stdout bytes.Buffer
	code := Run(ctx, []string{"--home", home, "--json", "solve", "--repo", r.Dir, "Fix add"}, strings.NewReader(""), &stdout, &stderr)
	id, _, _ := strings.Cut(strings.TrimPrefix(atFirstCall, "cra solve: task "), " ")
	if want := "cra solve: task " + id + " (resume with: cra solve --resume " + id + ")\n"; id == "" || !strings.HasPrefix(atFirstCall, want) {
		t.Fatalf("stderr at the first model call %q, want %q first (exit %d, stderr %s)", atFirstCall, want, code, stderr.String())
	}
	// stdout is the outcome with the interruption (whose message says how
	// to resume), never the task line.
	if code != exitInterrupted || strings.Contains(stdout.String(), "cra solve: task") ||
		oneJSONObject(t, stdout.String())["exit_code"] != float64(exitInterrupted) {
		t.Errorf("exit %d, stdout %q: want an interrupted run, no task line on stdout", code, stdout.String())
	}
	s.install(t, srv)
	res := cra(t, home, "", "--json", "solve", "--resume", id)
	if res.code != exitOK || !strings.HasPrefix(res.stderr, "cra solve: resuming task "+id+" (resume with: cra solve --resume "+id+")\n") {
		t.Fatalf("resume: exit %d, stderr %q", res.code, res.stderr)
	}
	var out struct {
		TaskID string `json:"task_id"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil || out.TaskID != id {
		t.Errorf("--json stdout %q: %v; want the outcome of %s alone", res.stdout, err, id)
	}
}

// A retry that leaves the same files as an attempt whose tests did not end
// in time is not tested again (it would hang as long): the step fails
// after one timeout, not two, and the retry's validation row says why.
func TestSolveDoesNotRetestATreeWhoseTestsTimedOut(t *testing.T) {
	t.Parallel()
	s := &solveScript{meta: onePart, part: oneStep, implement: []string{breakAdd}}
	srv := s.server(t)
	r := calcRepo(t)
	home := solveHome(t, srv, r, "")
	runs := filepath.Join(t.TempDir(), "runs")
	cfgPath := filepath.Join(home, "config.toml")
	cfg, _ := os.ReadFile(cfgPath)
	// Counted outside the worktree, which only an unconfined test can write.
	hang := fmt.Sprintf("test_command = \"echo run >> %s; sleep 60\"\ntimeout_seconds = 2\nsandbox = \"none\"\n", runs)
	cfg = []byte(strings.Replace(string(cfg), "test_command = \""+testCalc+"\"\ntimeout_seconds = 60\n", hang, 1))
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	res := cra(t, home, "", "solve", "--repo", r.Dir, "Fix add: it must return the sum")
	if res.code != exitFailures {
		t.Fatalf("exit %d, want 1 (the step failed)\n%s", res.code, res.stderr)
	}
	if s.count("implement") != 2 {
		t.Errorf("%d implement calls, want the attempt and its retry", s.count("implement"))
	}
	if b, _ := os.ReadFile(runs); strings.Count(string(b), "run") != 1 {
		t.Errorf("the test command ran %d times, want once", strings.Count(string(b), "run"))
	}
	if got := sqlRows(t, home, "select count(*) filter (where contains(test_output, 'not run again')) as skipped, count(*) as rows from raw.validation_results"); got != "skipped,rows\n1,2\n" {
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
	s := &solveScript{meta: strings.Replace(onePart, "one place", "one place "+key, 1), part: oneStep, implement: []string{leak, fix}}
	srv := s.server(t)
	r := calcRepo(t)
	home := solveHome(t, srv, r, "")
	cfgPath := filepath.Join(home, "config.toml")
	cfg, _ := os.ReadFile(cfgPath)
	os.WriteFile(cfgPath, []byte(strings.Replace(string(cfg), "[models]\n", "[models]\napi_key_env = \""+keyEnv+"\"\n", 1)), 0o644) //nolint:errcheck
	res := cra(t, home, "", "--json", "solve", "--repo", r.Dir, "Fix add: it must return the sum")
	if res.code != exitOK {
		t.Fatalf("solve: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if n := sqlRows(t, home, "select count(*) from raw.validation_results where test_output like '%[REDACTED]%' or test_output like '%"+key+"%'"); n == "count_star()\n0\n" {
		t.Fatal("no test output carried the key: the test proves nothing")
	}
	for _, table := range []string{"run_attempts", "validation_results", "task_runs", "session_archives", "retrieval_llm_calls"} {
		if out := mustRun(t, home, "sql", "--format", "jsonl", "from raw."+table); strings.Contains(out, key) {
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
			s := &solveScript{meta: onePart, part: oneStep, implement: []string{fixAdd + "\n" + writeOutside}}
			srv := s.server(t)
			r := calcRepo(t)
			home := solveHome(t, srv, r, "sandbox = \""+tc.sandbox+"\"\n")
			res := cra(t, home, "", "solve", "--repo", r.Dir, "Fix add")
			_, err := os.Stat(escaped)
			if landed := err == nil; landed != tc.escapes {
				t.Fatalf("the write outside the worktree landed: %v, want %v (exit %d)\n%s", landed, tc.escapes, res.code, res.stdout)
			}
			warning := `tests run unconfined ([testing] sandbox = "none")`
			if n := strings.Count(res.stdout, warning); tc.escapes && (res.code != exitOK || n != 1) || !tc.escapes && (res.code == exitOK || n != 0) {
				t.Errorf("exit %d, the warning said %d times:\n%s\n%s", res.code, n, res.stdout, res.stderr)
			}
			if !tc.escapes {
				if got := sqlRows(t, home, `select count(*) from raw.validation_results where contains(test_output, 'escaped_by_test.txt')`); got == "count_star()\n0\n" {
					t.Errorf("the failed write is not in the validation output")
				}
			}
		})
	}
}

// sandbox = "bwrap" where bubblewrap cannot run: cra solve stops before
// its first row, session or worktree (exit 2), naming the setting.
func TestSolveRefusesWithoutTheSandboxItWasToldToUse(t *testing.T) {
	s := &solveScript{meta: onePart, part: oneStep, implement: []string{fixAdd}}
	srv := s.server(t)
	r := calcRepo(t)
	home := solveHome(t, srv, r, "sandbox = \"bwrap\"\n")
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
	res := cra(t, home, "", "solve", "--repo", r.Dir, "Fix add")
	if res.code != exitUsage || !strings.Contains(res.stderr, "testing.sandbox") || !strings.Contains(res.stderr, "install bubblewrap") {
		t.Errorf("exit %d: %s", res.code, res.stderr)
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
	s := &solveScript{meta: onePart, part: oneStep, implement: []string{fixAdd}}
	srv := s.server(t)
	r := calcRepo(t)
	r.Write("calc.py", calcSrc+"\n\nAWS_ACCESS_KEY_ID = \""+planted[0]+"\"\nGITHUB_TOKEN = \""+planted[1]+"\"\n")
	r.Commit("keys in calc")
	home := solveHome(t, srv, r, "")
	cfgPath := filepath.Join(home, "config.toml")
	cfg, _ := os.ReadFile(cfgPath)
	remote := strings.Replace(string(cfg), `provider = "ollama"`, `provider = "remote_api"`, 1)
	remote = strings.Replace(remote, `base_url = "`+srv.OllamaURL()+`"`, `base_url = "`+srv.OpenAIURL()+`"`+"\napi_key_env = \""+keyEnv+"\"", 1)
	if err := os.WriteFile(cfgPath, []byte(remote), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := cra(t, home, "", "solve", "--repo", r.Dir, "Fix add: it must return the sum"); res.code != exitOK {
		t.Fatalf("solve: exit %d\n%s%s", res.code, res.stdout, res.stderr)
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
	calls := mustRun(t, home, "sql", "--format", "jsonl", "from raw.retrieval_llm_calls")
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
