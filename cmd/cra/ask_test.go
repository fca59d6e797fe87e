package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cra-dev/cra/agent/ask/asktest"
	"github.com/cra-dev/cra/agent/eval/evaltest"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/kb/schema"
)

// errorPathRepo has a planted error path: cli() sets state, then calls
// down to a function that raises UsageError three calls below it.
func errorPathRepo(t *testing.T) *gittest.Repo {
	r := gittest.New(t)
	r.Write("pkg/errors.py", "class UsageError(Exception):\n    \"\"\"A command line was used wrongly.\"\"\"\n")
	r.Write("pkg/core.py", `from pkg.errors import UsageError

_cache = {}


def check_param(name, value):
    if value is None:
        raise UsageError("Missing parameter: " + name)
    return value


def parse(args):
    return {k: check_param(k, v) for k, v in args.items()}


def prepare(args):
    global _cache
    _cache = parse(args)
    return _cache


def cli(args):
    """The command line's entry point."""
    return prepare(args)
`)
	r.Commit("Add the command line")
	return r
}

// cra ask end to end on a real repository against the fake model over
// HTTP: the answer cites what retrieval found, the run is logged (its
// task run, classification decision, calls, context and session); a model
// that stays unusable exits 1 with the run recorded as failed; preflight
// failures exit 2.
func TestAskCommand(t *testing.T) {
	t.Parallel()
	var prose atomic.Bool
	home := askHome(t, &prose)
	r := errorPathRepo(t)
	q := "Why do I get UsageError: Missing parameter: name?"
	if res := cra(t, home, "", "ask", "--repo", r.Dir, q); res.code != exitUsage || !strings.Contains(res.stderr, "cra index "+r.Dir) {
		t.Fatalf("not indexed: exit %d, %q", res.code, res.stderr)
	}
	if res := cra(t, home, "", "ask", "--repo", r.Dir); res.code != exitUsage || !strings.Contains(res.stderr, "ask needs one question") {
		t.Fatalf("no question: exit %d, %q", res.code, res.stderr)
	}
	mustRun(t, home, "index", r.Dir)

	human := mustRun(t, home, "ask", "--repo", r.Dir, q)
	if !strings.Contains(human, "diagnostic question (by model") || !strings.Contains(human, "sources:\n  pkg/core.py:") ||
		!strings.Contains(human, "stopped: no gaps") {
		t.Errorf("answer:\n%s", human)
	}
	var res struct {
		TaskID         string `json:"task_id"`
		Classification struct {
			Mode, By string
		} `json:"classification"`
		Sources []struct {
			Path   string `json:"path"`
			Start  int    `json:"start"`
			Symbol string `json:"symbol"`
		} `json:"sources"`
		Passes int    `json:"passes"`
		Stop   string `json:"stop"`
	}
	out := mustRun(t, home, "--json", "ask", "--repo", r.Dir, q)
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Classification.Mode != "diagnostic" || len(res.Sources) == 0 ||
		res.Sources[0].Symbol != "check_param" || res.Passes != 1 || res.Stop != "no_gaps" {
		t.Fatalf("--json: %v\n%s", err, out)
	}

	// Logged like the agent's runs.
	id := res.TaskID
	if got := mustRun(t, home, "sql", "--format", "csv", "select mode, success, stages from raw.task_runs where task_id = '"+id+"'"); got != "mode,success,stages\nask,true,\"[\"\"ask_classify\"\",\"\"ask_answer\"\"]\"\n" {
		t.Errorf("task run:\n%s", got)
	}
	calls := mustRun(t, home, "sql", "--format", "csv", "select call_type, count(*) from raw.retrieval_llm_calls where task_id = '"+id+"' group by 1 order by 1")
	if calls != "call_type,count_star()\nask_answer,1\nask_classify,1\nask_retrieval,1\n" {
		t.Errorf("calls:\n%s", calls)
	}
	decisions := mustRun(t, home, "sql", "--format", "csv", `select d.stage, d.tier, f.path from raw.retrieval_decisions d
		left join curated.files f on f.id = d.file_id where task_id = '`+id+"' order by d.stage, d.rank")
	if !strings.HasPrefix(decisions, "stage,tier,path\nask_classify,diagnostic,\nask_retrieval,error_site,pkg/core.py\n") {
		t.Errorf("decisions:\n%s", decisions)
	}
	keys := mustRun(t, home, "sql", "--format", "csv", "select unnest(json_keys(decode(session_blob)::JSON)) as k from raw.session_archives where task_id = '"+id+"' order by 1")
	if keys != "k\nask_classification\nask_context\nask_question\nask_result\n" {
		t.Errorf("the archived session's keys:\n%s", keys)
	}
	if entries, _ := os.ReadDir(filepath.Join(home, "sessions")); len(entries) != 0 {
		t.Errorf("session files left: %v", entries)
	}

	// A model that stays unusable: exit 1, the run recorded as failed.
	prose.Store(true)
	failed := cra(t, home, "", "ask", "--repo", r.Dir, q)
	if failed.code != exitFailures || !strings.Contains(failed.stderr, "could not be used, twice") || !strings.Contains(failed.stderr, "notebooks/ask_trace.sql") {
		t.Errorf("unusable answers: exit %d, %q", failed.code, failed.stderr)
	}
	if got := mustRun(t, home, "sql", "--format", "csv", "select count(*) filter (where not success) from raw.task_runs where mode = 'ask'"); got != "count_star() FILTER (WHERE (NOT success))\n1\n" {
		t.Errorf("failed runs: %q", got)
	}
}

// askHome is a home whose models are a fake that answers ask prompts as
// asktest does (prose: the answer pass answers prose instead).
func askHome(t *testing.T, prose *atomic.Bool) string {
	srv := fakellm.New(t)
	answer := asktest.Answer(nil)
	srv.SetDefault(func(req fakellm.Request) fakellm.Reply {
		if evaltest.IsPing(req) {
			return fakellm.Reply{Text: "ok"}
		}
		stage, right, _, ok := answer(req)
		if !ok {
			t.Errorf("unexpected prompt %.80q", req.Messages[0].Content)
			return fakellm.Reply{Status: 500}
		}
		if prose.Load() && stage == schema.StageAskAnswer {
			return fakellm.Reply{Text: "It is probably a missing parameter."}
		}
		return fakellm.Reply{Text: right}
	})
	home := modelHome(t, srv.OllamaURL())
	return home
}

// Two cra ask processes in one home at once, with cra sql reading it in
// processes of its own meanwhile: both answer, each logs its own run, and
// every read succeeds.
func TestTwoAsksInOneHomeAtOnce(t *testing.T) {
	t.Parallel()
	home := askHome(t, new(atomic.Bool))
	r := errorPathRepo(t)
	mustRun(t, home, "index", r.Dir)
	var reads, failedReads atomic.Int32
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			res := craProcesses(t, []string{"--home", home, "sql", "select count(*) from raw.retrieval_llm_calls"})[0]
			reads.Add(1)
			if res.code != exitOK {
				failedReads.Add(1)
				t.Errorf("cra sql during the asks: exit %d: %s", res.code, res.stderr)
			}
		}
	}()
	askArgs := func(q string) []string { return []string{"--home", home, "--json", "ask", "--repo", r.Dir, q} }
	runs := craProcesses(t, askArgs("Why do I get UsageError: Missing parameter?"), askArgs("Trace the flow from cli to check_param"),
		askArgs("What does prepare do?"))
	close(done)
	wg.Wait()
	ids := map[string]bool{}
	for i, res := range runs {
		var out struct {
			TaskID string `json:"task_id"`
		}
		if err := json.Unmarshal([]byte(res.stdout), &out); err != nil || res.code != exitOK {
			t.Fatalf("ask %d: exit %d, %v\n%s\n%s", i, res.code, err, res.stdout, res.stderr)
		}
		ids[out.TaskID] = true
	}
	got := mustRun(t, home, "sql", "--format", "csv", `select t.task_id, t.success, count(c.task_id) filter (where c.call_type = 'ask_answer')
		from raw.task_runs t left join raw.retrieval_llm_calls c using (task_id) where t.mode = 'ask' group by all order by 1`)
	lines := strings.Split(strings.TrimSpace(got), "\n")[1:]
	if len(lines) != 3 {
		t.Fatalf("ask runs:\n%s", got)
	}
	for _, l := range lines {
		f := strings.Split(l, ",")
		if !ids[f[0]] || f[1] != "true" || f[2] != "1" {
			t.Errorf("ask run %s", l)
		}
	}
	t.Logf("%d reads beside the asks", reads.Load())
	if reads.Load() == 0 || failedReads.Load() > 0 {
		t.Errorf("%d reads beside the asks, %d failed", reads.Load(), failedReads.Load())
	}
}
