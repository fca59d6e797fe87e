package clitest

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cra-dev/cra/agent/prompt"

	"github.com/cra-dev/cra/agent/eval/evaltest"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/kb/schema"
)

// SolveScript answers each kind of call of a cra solve run. Implement
// answers are taken in turn (the last one repeats); nil kinds get defaults.
type SolveScript struct {
	Meta, Part string
	Analysis   []string // task analysis answers; nil: one naming calc.py
	Implement  []string
	Adjust     []string
	mu         sync.Mutex
	calls      map[string]int
	prompts    map[string][]string
}

// Server is a fake model answering with the script.
func (s *SolveScript) Server(t testing.TB) *fakellm.Server {
	srv := fakellm.New(t)
	s.Install(t, srv)
	return srv
}

// Install makes srv answer with the script, its counts started afresh.
func (s *SolveScript) Install(t testing.TB, srv *fakellm.Server) {
	s.mu.Lock()
	s.calls, s.prompts = map[string]int{}, map[string][]string{}
	s.mu.Unlock()
	srv.SetDefault(func(req fakellm.Request) fakellm.Reply {
		if evaltest.IsPing(req) {
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
		switch stage := prompt.StageOf(system); stage {
		case schema.StageTaskAnalysis:
			return take(stage, s.Analysis, `{"summary": "", "files": ["calc.py"], "symbols": ["add"], "keywords": []}`)
		case schema.StageScope:
			return take(stage, nil, `{"relevant": ["calc.py", "util.py"]}`)
		case schema.StagePrecision:
			return take(stage, nil, `{"symbols": {"calc.py:add": "primary"}}`)
		case schema.StageMetaPlan:
			return take(stage, nil, s.Meta)
		case schema.StagePartPlan:
			return take(stage, nil, s.Part)
		case schema.StageImplement:
			return take(stage, s.Implement, "")
		case schema.StageAdjustment:
			return take(stage, s.Adjust, `{"revised_steps": [], "rationale": "nothing left", "changes_made": []}`)
		}
		t.Errorf("unexpected system prompt %.60q", system)
		return fakellm.Reply{Status: 500}
	})
}

// Count is how many calls of kind (a stage, e.g. schema.StageImplement) the script answered.
func (s *SolveScript) Count(kind string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[kind]
}

// Prompts are the user prompts of the calls of kind, in order.
func (s *SolveScript) Prompts(kind string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.prompts[kind])
}

// Calls counts the calls answered, by kind.
func (s *SolveScript) Calls() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.calls)
}

// The answers and the project of the solve tests: CalcRepo's add is wrong
// (FixAdd fixes it, BreakAdd breaks it another way), in one part of one
// step.
const (
	OnePart   = `{"task_summary": "fix add", "parts": [{"id": "p1", "description": "Fix add in calc.py", "affected_files": ["calc.py"], "depends_on": []}], "rationale": "one place"}`
	OneStep   = `{"part_id": "p1", "task_summary": "fix add", "steps": [{"id": "s1", "description": "Make add return the sum", "target_files": ["calc.py"], "target_symbols": ["add"], "depends_on": []}], "rationale": "small"}`
	FixAdd    = "<edit file=\"calc.py\">\n<search>\n    return a - b\n</search>\n<replacement>\n    return a + b\n</replacement>\n</edit>"
	BreakAdd  = "<edit file=\"calc.py\">\n<search>\n    return a - b\n</search>\n<replacement>\n    return a * b\n</replacement>\n</edit>"
	TestCalc  = "python3 -m unittest discover -s tests -t ."
	CalcSrc   = "def add(a, b):\n    return a - b\n\n\ndef double(x):\n    return 2 * x\n"
	CalcTests = "import unittest\n\nfrom calc import add, double\n\n\nclass TestCalc(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n\n    def test_double(self):\n        self.assertEqual(double(2), 4)\n"
)

// SolveHome is an initialised home, r indexed, whose models are srv and
// whose test command runs r's unittest suite; extra is more of config.toml's
// [testing] section.
func (c *CLI) SolveHome(t testing.TB, srv *fakellm.Server, r *gittest.Repo, extra string) string {
	t.Helper()
	home := c.ModelHome(t, srv.OllamaURL())
	SetConfig(t, home, "[testing]\n", "[testing]\ntest_command = \""+TestCalc+"\"\ntimeout_seconds = 60\n"+extra)
	c.MustRun(t, home, "index", r.Dir)
	return home
}

// SolveRows are a home's rows of its one solve run, the run's id
// replaced, in a stable order: what a resumed run must end with.
func (c *CLI) SolveRows(t testing.TB, home string) string {
	t.Helper()
	run := strings.TrimSpace(strings.Split(c.SQLRows(t, home, "select task_id from raw.orchestrator_runs"), "\n")[1])
	rows := c.SQLRows(t, home,
		"select task_id, mode, success, total_tokens, final_diff from raw.task_runs order by 1",
		"select p.sequence_order, p.pass_type, p.part_id, p.step_id, t.task_id from raw.orchestrator_passes p join raw.task_runs t on t.id = p.task_run_id order by 1",
		"select t.task_id, a.attempt, a.patch_applied, a.raw_response, v.success, v.failing_tests from raw.run_attempts a join raw.task_runs t on t.id = a.task_run_id join raw.validation_results v on v.attempt_id = a.id order by 1, 2",
		"select task_id, call_type, prompt, response, count(*) from raw.retrieval_llm_calls group by all order by all",
		"select task_id, stage, tier, rank, detail_level, included, reason, count(*) from raw.retrieval_decisions group by all order by all",
		"select task_id, count(*) from raw.session_archives group by all order by all",
		"select status, total_parts, total_steps, parts_completed, steps_completed from raw.orchestrator_runs",
	)
	out := strings.ReplaceAll(strings.ReplaceAll(rows, run, "RUN"), home, "HOME")
	return testTiming.ReplaceAllString(out, "in TIME")
}

// testTiming is the one thing a test run prints that changes by itself.
var testTiming = regexp.MustCompile(`in [0-9.]+s\b`)
