package solve_test

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cra-dev/cra/agent/eval/evaltest"
	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/fakellm"
)

// planFake is a fake model server that answers each pipeline stage by its
// system prompt, with what it was asked. Its handler runs on the server's
// goroutines while cra children call it, so what it records is read
// behind its lock (a child's request is no happens-before edge for Go).
type planFake struct {
	*fakellm.Server
	mu      sync.Mutex
	calls   map[string]int
	prompts []string // the plan stage's user prompts
}

// Calls counts the calls per stage so far.
func (p *planFake) Calls() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.calls)
}

// Prompts are the plan stage's user prompts since the last reset.
func (p *planFake) Prompts() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.prompts)
}

func (p *planFake) resetPrompts() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.prompts = nil
}

// planServer answers each pipeline stage by its system prompt; bad makes
// the plan stage answer prose.
func planServer(t *testing.T, bad bool) *planFake {
	p := &planFake{Server: fakellm.New(t), calls: map[string]int{}}
	calls := p.calls
	p.SetDefault(func(req fakellm.Request) fakellm.Reply {
		if evaltest.IsPing(req) {
			return fakellm.Reply{Text: "ok"}
		}
		system := req.Messages[0].Content
		p.mu.Lock()
		defer p.mu.Unlock()
		if strings.HasPrefix(system, "You plan a code change") {
			p.prompts = append(p.prompts, req.Messages[len(req.Messages)-1].Content)
		}
		switch {
		case strings.HasPrefix(system, "You read a coding task"):
			calls["task_analysis"]++
			return fakellm.Reply{Text: `{"summary": "helper adds one", "files": [], "symbols": ["helper"], "keywords": []}`}
		case strings.HasPrefix(system, "You select the files"):
			calls["scope"]++
			return fakellm.Reply{Text: `{"relevant": ["pkg/util.py", "pkg/main.py"]}`, Thinking: "util defines helper"}
		case strings.HasPrefix(system, "You decide how much"):
			calls["precision"]++
			// A think block in the answer itself (a model ignoring think=false)
			// that would break the JSON parser if it reached it.
			return fakellm.Reply{Text: `<think>{"symbols": {unfinished</think>{"symbols": {"pkg/util.py:helper": "primary", "pkg/main.py:run": "supporting"}}`}
		case strings.HasPrefix(system, "You plan a code change"):
			calls["plan"]++
			if bad {
				return fakellm.Reply{Text: "I would change helper."}
			}
			return fakellm.Reply{Text: `{"task_summary": "Make helper add two", "affected_files": [{"path": "pkg/util.py", "role": "modify",
				"changes": [{"symbol": "helper", "action": "modify", "description": "add two", "depends_on": [], "depended_by": []}]}],
				"execution_order": ["pkg/util.py"], "rationale": "helper is the only place"}`}
		}
		t.Errorf("unexpected system prompt %.60q", system)
		return fakellm.Reply{Status: 500}
	})
	return p
}

// cra plan end to end on a real repository against the fake server: the
// plan file, the task_runs row, one logged call per stage under the run's
// task id, a decision per candidate and symbol; preflight's next steps;
// unusable answers asked once more, then exit 1 with the failure logged.
func TestPlanCommand(t *testing.T) {
	t.Parallel()
	srv := planServer(t, false)
	home := cli.ModelHome(t, srv.OllamaURL())
	r := clitest.SmallRepo(t)
	if res := cli.Cra(t, home, "", "plan", "--repo", r.Dir, "Make helper add two"); res.Code != clitest.ExitUsage || !strings.Contains(res.Stderr, "cra index "+r.Dir) {
		t.Fatalf("not indexed: exit %d, %q", res.Code, res.Stderr)
	}
	cli.MustRun(t, home, "index", r.Dir)

	out := filepath.Join(t.TempDir(), "plan.json")
	human := cli.MustRun(t, home, "plan", "--repo", r.Dir, "--output", out, "Make helper add two")
	if !strings.Contains(human, "pkg/util.py (modify)") || !strings.Contains(human, "modify helper: add two") {
		t.Errorf("summary:\n%s", human)
	}
	b, err := os.ReadFile(out)
	var plan struct {
		TaskSummary   string `json:"task_summary"`
		AffectedFiles []struct {
			Path string `json:"path"`
		} `json:"affected_files"`
	}
	if err != nil || json.Unmarshal(b, &plan) != nil || plan.AffectedFiles[0].Path != "pkg/util.py" {
		t.Fatalf("plan file %q (%v)", b, err)
	}
	for _, stage := range []string{"task_analysis", "scope", "precision", "plan"} {
		if srv.Calls()[stage] != 1 {
			t.Errorf("%s: %d calls, want 1", stage, srv.Calls()[stage])
		}
	}
	run := cli.MustRun(t, home, "sql", "--format", "csv", "select task_id, mode, success, final_plan->>'task_summary' from raw.task_runs")
	lines := strings.Split(strings.TrimSpace(run), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[1], ",plan,true,Make helper add two") {
		t.Fatalf("task_runs:\n%s", run)
	}
	taskID := strings.Split(lines[1], ",")[0]
	// The run's tokens are its calls' tokens, one stage override or not.
	if got := cli.MustRun(t, home, "sql", "--format", "csv", `select r.total_tokens = sum(c.prompt_tokens + c.completion_tokens) as same, r.total_tokens > 0 as some
		from raw.task_runs r join raw.retrieval_llm_calls c using (task_id) group by r.total_tokens`); got != "same,some\ntrue,true\n" {
		t.Errorf("total tokens: %q", got)
	}
	logged := cli.MustRun(t, home, "sql", "--format", "csv", "select call_type, count(*), count(thinking) from raw.retrieval_llm_calls where task_id = '"+taskID+"' group by 1 order by 1")
	// Thinking, in its own field or in the answer, is logged apart and
	// never parsed: the precision answer was used at the first try.
	if logged != "call_type,count_star(),count(thinking)\nplan,1,0\nprecision,1,1\nscope,1,1\ntask_analysis,1,0\n" {
		t.Errorf("logged calls:\n%s", logged)
	}
	// The plan prompt holds the context package: the primary symbol in
	// full, the supporting one as its signature, the history of the file.
	if prompts := srv.Prompts(); len(prompts) != 1 || !strings.Contains(prompts[0], "pkg/util.py\n    def helper(x):\n        return x + 1\n") ||
		!strings.Contains(prompts[0], "pkg/main.py\n    def run():\n") || strings.Contains(prompts[0], "return helper(1)") ||
		!strings.Contains(prompts[0], "[history] commit ") {
		t.Errorf("plan prompt:\n%s", strings.Join(prompts, "\n---\n"))
	}
	decisions := cli.MustRun(t, home, "sql", "--format", "csv", "select stage, count(*), count(*) filter (where included) from raw.retrieval_decisions where task_id = '"+taskID+"' group by 1 order by 1")
	if !strings.HasPrefix(decisions, "stage,count_star(),") || !strings.Contains(decisions, "scope,2,2") || !strings.Contains(decisions, "precision,2,2") {
		t.Errorf("decisions:\n%s", decisions)
	}
	// Scope decisions carry their tier and rank; precision ones the
	// deterministic guess (helper is named by the task analysis: primary;
	// run calls it: supporting).
	detail := cli.MustRun(t, home, "sql", "--format", "csv", "select stage, tier, rank, detail_level, reason from raw.retrieval_decisions where task_id = '"+taskID+"' order by stage, reason")
	for _, want := range []string{"scope,1,1,,kept by the model (tier 1: mention: defines helper)", "scope,2,1,,kept by the model (tier 2: imports pkg/util.py)",
		"precision,,,primary,tiered by the model (deterministic guess: primary)", "precision,,,supporting,tiered by the model (deterministic guess: supporting)"} {
		if !strings.Contains(detail, want+"\n") {
			t.Errorf("decisions lack %q:\n%s", want, detail)
		}
	}

	// The session: archived into the raw store with every stage's output,
	// its file removed.
	if entries, _ := os.ReadDir(filepath.Join(home, "sessions")); len(entries) != 0 {
		t.Errorf("session files left: %v", entries)
	}
	keys := cli.MustRun(t, home, "sql", "--format", "csv", "select unnest(json_keys(decode(session_blob)::JSON)) as k from raw.session_archives where task_id = '"+taskID+"' order by 1")
	for _, k := range []string{"final_context", "plan_artifact", "stage_output_plan", "stage_output_precision", "stage_output_scope", "stage_output_task_analysis", "stage_progress", "task_query"} {
		if !strings.Contains(keys, "\n"+k+"\n") {
			t.Errorf("the archived session lacks %s:\n%s", k, keys)
		}
	}

	// --rev: the revision must be the one indexed; the next step says how.
	if res := cli.Cra(t, home, "", "plan", "--repo", r.Dir, "--rev", "HEAD~1", "Make helper add two"); res.Code != clitest.ExitUsage ||
		!strings.Contains(res.Stderr, "run `cra index --rev HEAD~1 "+r.Dir+"`") {
		t.Errorf("--rev not indexed: exit %d, %q", res.Code, res.Stderr)
	}
	if res := cli.Cra(t, home, "", "plan", "--repo", r.Dir, "--rev", "no-such-branch", "Make helper add two"); res.Code != clitest.ExitUsage ||
		!strings.Contains(res.Stderr, "--rev no-such-branch is no commit") {
		t.Errorf("--rev unknown: exit %d, %q", res.Code, res.Stderr)
	}
	revHome := cli.ModelHome(t, srv.OllamaURL())
	cli.MustRun(t, revHome, "index", "--rev", "HEAD~1", r.Dir)
	srv.resetPrompts()
	cli.MustRun(t, revHome, "plan", "--repo", r.Dir, "--rev", "HEAD~1", "Make helper add two")
	if prompts := srv.Prompts(); len(prompts) != 1 || !strings.Contains(prompts[0], "def helper(x):\n        return x\n") {
		t.Errorf("plan at HEAD~1 reads helper as it was then:\n%s", strings.Join(prompts, "\n---\n"))
	}

	badSrv := planServer(t, true)
	badHome := cli.ModelHome(t, badSrv.OllamaURL())
	cli.MustRun(t, badHome, "index", r.Dir)
	res := cli.Cra(t, badHome, "", "plan", "--repo", r.Dir, "Make helper add two")
	if res.Code != clitest.ExitFailures || !strings.Contains(res.Stderr, "could not be used, twice") || badSrv.Calls()["plan"] != 2 {
		t.Errorf("unusable plan: exit %d, %q, %d plan calls", res.Code, res.Stderr, badSrv.Calls()["plan"])
	}
	if got := cli.MustRun(t, badHome, "sql", "--format", "csv", "select success from raw.task_runs"); got != "success\nfalse\n" {
		t.Errorf("the failed run is recorded as %q", got)
	}

	// A context window too small for even the primary symbols: the plan
	// pass is refused before any call, and the assembly row says why.
	tiny := cli.NewHome(t)
	tinySrv := planServer(t, false)
	cli.MustRun(t, tiny, "init", "--provider", "ollama", "--base-url", tinySrv.OllamaURL(), "--coding-model", "c:1b", "--reasoning-model", "r:1b")
	cfgPath := filepath.Join(tiny, "config.toml")
	cfg, _ := os.ReadFile(cfgPath)
	cfg = []byte(strings.Replace(string(cfg), "[models]\n", "[models]\ncontext_window = 1150\nmax_tokens = 100\n", 1))
	cfg = []byte(strings.Replace(string(cfg), "[budget]\n", "[budget]\nreserved_tokens = 1100\n", 1))
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	cli.MustRun(t, tiny, "index", r.Dir)
	res = cli.Cra(t, tiny, "", "plan", "--repo", r.Dir, "Make helper add two")
	if res.Code != clitest.ExitFailures || !strings.Contains(res.Stderr, "over budget") || tinySrv.Calls()["plan"] != 0 {
		t.Errorf("tiny budget: exit %d, %q, %d plan calls; want 1, over budget, no plan call", res.Code, res.Stderr, tinySrv.Calls()["plan"])
	}
	if got := cli.MustRun(t, tiny, "sql", "--format", "csv", "select count(*) from raw.retrieval_llm_calls where call_type = 'assembly' and error like '%over budget%'"); got != "count_star()\n1\n" {
		t.Errorf("assembly rows: %q", got)
	}
}

// An index older than HEAD is refused before any model call, by cra plan
// and cra solve alike (one rule), with the two ways on; after `cra index`
// the plan runs, and --rev of the indexed commit runs without it.
func TestPlanRefusesAnIndexBehindHead(t *testing.T) {
	t.Parallel()
	srv := planServer(t, false)
	home := cli.ModelHome(t, srv.OllamaURL())
	r := clitest.SmallRepo(t)
	cli.MustRun(t, home, "index", r.Dir)
	indexed := r.Head()
	r.Write("pkg/util.py", "def helper(x):\n    return x + 2\n")
	head := r.Commit("third")
	want := "the index of " + r.Dir + " is at " + indexed[:12] + ", HEAD is at " + head[:12] +
		": run `cra index " + r.Dir + "` (or pass --rev " + indexed[:12] + ")"
	for _, cmd := range []string{"plan", "solve"} {
		if res := cli.Cra(t, home, "", cmd, "--repo", r.Dir, "Make helper add two"); res.Code != clitest.ExitUsage || !strings.Contains(res.Stderr, want) {
			t.Errorf("%s with the index behind HEAD: exit %d, %q; want exit 2 saying %q", cmd, res.Code, res.Stderr, want)
		}
	}
	if n := len(srv.Calls()); n != 0 {
		t.Fatalf("models called before the refusal: %v", srv.Calls())
	}
	cli.MustRun(t, home, "plan", "--repo", r.Dir, "--rev", indexed[:12], "Make helper add two")
	cli.MustRun(t, home, "index", r.Dir)
	cli.MustRun(t, home, "plan", "--repo", r.Dir, "Make helper add two")
}
