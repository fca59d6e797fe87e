package distill

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/bootstrap"
	"github.com/cra-dev/cra/curate"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

const (
	teacherKeyEnv = "CRA_TEST_DISTILL_KEY"
	teacherKey    = "sk-distill-test-4e1d7c9a2b-SECRET"
)

// minedHome is a home whose raw store holds the synthetic tasks of repo,
// mined by bootstrap.
func minedHome(t testing.TB, repo *gittest.Repo) string {
	t.Helper()
	home := storetest.Home(t)
	if _, err := bootstrap.Run(context.Background(), home, []string{repo.Dir},
		bootstrap.Options{Jobs: 2, Filter: config.Default().Bootstrap}); err != nil {
		t.Fatal(err)
	}
	return home
}

// minedPythonHome is a home that mined a gittest.PythonHistory: a copy of
// one mined once per test binary, which a dozen tests start from (each
// mining its own cost a second of CPU). Curate runs no git, so the
// repository, gone with the first test, is not needed after.
func minedPythonHome(t testing.TB) string {
	t.Helper()
	home := t.TempDir()
	minedPython.Copy(t, home)
	return home
}

var minedPython = storetest.NewTemplateOf(func(t testing.TB, dir string) {
	if err := kb.Init(context.Background(), dir, "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := bootstrap.Run(context.Background(), dir, []string{gittest.PythonHistory(t).Dir},
		bootstrap.Options{Jobs: 2, Filter: config.Default().Bootstrap}); err != nil {
		t.Fatal(err)
	}
})

// smallWindows makes the selection come a few ids at a time for the
// rest of the test.
func smallWindows(t testing.TB, n int) {
	old := selectionWindow
	selectionWindow = n
	t.Cleanup(func() { selectionWindow = old })
}

// allItems are every item of the selection of opts (normalized).
func allItems(t testing.TB, home string, opts Options) []*item {
	t.Helper()
	var items []*item
	if err := kb.WithWriter(context.Background(), home, kb.Raw, kb.Options{}, func(w kb.Writer) error {
		sel, err := selectionOf(context.Background(), w.Conn, opts)
		if err != nil {
			return err
		}
		items, err = sel.load(context.Background(), w.Conn, sel.ids, map[string]int{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return items
}

// teacherServer is a paid fake teacher that answers each prompt with the
// ground truth's answer when right(prompt) says so and with a wrong (but
// parsable) answer otherwise. Its tokens are chars/4, as the estimator's
// rule assumes.
type teacherServer struct {
	*fakellm.Server
	truth map[string]string // user prompt → the ground truth's answer
	wrong map[string]string // user prompt → a wrong answer
	mu    sync.Mutex
	delay time.Duration // how long each answer takes
	// overReport, when > 0, is the completion tokens every answer reports
	// (and is charged), past max_tokens if it is more: a faulty provider.
	overReport int
}

// slow makes each answer take d.
func (ts *teacherServer) slow(d time.Duration) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.delay = d
}

// overReports makes every answer report n completion tokens, whatever its
// max_tokens.
func (ts *teacherServer) overReports(n int) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.overReport = n
}

// reply is an answer of text, as slow and overReports say (ts.mu held).
func (ts *teacherServer) reply(text string) fakellm.Reply {
	return fakellm.Reply{Text: text, Delay: ts.delay, CompletionTokens: ts.overReport, PastMaxTokens: ts.overReport > 0}
}

var testPrices = config.TeacherPrices{InputPerMillion: 2.5, CachedInputPerMillion: 1.25, OutputPerMillion: 10, BatchDiscount: 0.5}

func newTeacher(t testing.TB, home string, right func(prompt string) bool) *teacherServer {
	t.Helper()
	ts := &teacherServer{Server: fakellm.New(t), truth: map[string]string{}, wrong: map[string]string{}}
	opts, _ := distillOptions(ts.Server).normalize()
	// Keyed by system and user prompt: the plan stages share their user
	// prompt (the task and its context) and differ by the system prompt.
	for _, it := range allItems(t, home, opts) {
		ex, _ := curate.RenderForStudent(it.task, it.stage, opts.Budget)
		ts.truth[ex.System+"\x00"+it.user] = ex.Answer
		ts.wrong[ex.System+"\x00"+it.user] = wrongAnswer(it.stage, ex.Answer)
	}
	ts.SetDefault(func(req fakellm.Request) fakellm.Reply {
		user := req.Messages[len(req.Messages)-1].Content
		key := req.Messages[0].Content + "\x00" + user
		ts.mu.Lock()
		defer ts.mu.Unlock()
		if ans, ok := ts.truth[key]; ok && right(user) {
			return ts.reply(ans)
		}
		if ans, ok := ts.wrong[key]; ok {
			return ts.reply(ans)
		}
		return ts.reply("I cannot help with that.")
	})
	ts.SetBilling(billing(testPrices))
	return ts
}

func billing(p config.TeacherPrices) fakellm.Billing {
	return fakellm.Billing{InputPerMillion: p.InputPerMillion, CachedInputPerMillion: p.CachedInputPerMillion,
		OutputPerMillion: p.OutputPerMillion, BatchDiscount: p.BatchDiscount,
		Tokens: func(s string) int { return chars4.Estimate(s) }}
}

// wrongAnswer is an answer of the stage's format that verification must
// reject.
func wrongAnswer(stage, right string) string {
	switch stage {
	case "scope":
		return `{"relevant": []}`
	case "precision":
		return `{"symbols": {}}`
	case "plan":
		return `{"task_summary": "x", "affected_files": [{"path": "nowhere/else.py", "role": "create", "changes": []}], "execution_order": ["nowhere/else.py"], "rationale": ""}`
	case "meta_plan":
		return `{"task_summary": "x", "parts": [{"id": "p1", "description": "x", "affected_files": ["nowhere/else.py"], "depends_on": []}], "rationale": ""}`
	case "part_plan":
		return `{"part_id": "p1", "task_summary": "x", "steps": [{"id": "s1", "description": "x", "target_files": ["nowhere/else.py"], "target_symbols": [], "depends_on": []}], "rationale": ""}`
	}
	return strings.Replace(right, "</replacement>", "# wrong\n</replacement>", 1)
}

// half says yes to about half of the prompts, always the same ones.
func half(prompt string) bool {
	h := fnv.New32a()
	h.Write([]byte(prompt))
	return h.Sum32()%2 == 0
}

func always(string) bool { return true }

func distillOptions(srv *fakellm.Server) Options {
	cfg := config.Default()
	b, _ := llm.NewBudget(cfg)
	return Options{Name: "distilled", From: FromSynthetic,
		Teacher: llm.ModelConfig{Provider: llm.ProviderRemoteAPI, BaseURL: srv.OpenAIURL(), Model: "teacher-1",
			APIKeyEnv: teacherKeyEnv, MaxTokens: 2048, Timeout: 20 * time.Second, MaxRetries: 8, MaxConcurrency: 4},
		Prices: testPrices, Verify: cfg.Teacher.Verify, Curate: cfg.Curate, Budget: b, Jobs: 4,
		BatchPoll: 10 * time.Millisecond}
}

// curateData builds dataset name with curate-data, as configured by
// default.
func curateData(t testing.TB, home, name string) {
	t.Helper()
	cfg := config.Default()
	b, _ := llm.NewBudget(cfg)
	if _, err := curate.Curate(context.Background(), home, curate.Options{Name: name, Curate: cfg.Curate, Budget: b, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
}

func distill(t testing.TB, home string, opts Options) *Summary {
	t.Helper()
	sum, err := Run(context.Background(), home, opts)
	if err != nil {
		t.Fatalf("distill: %v", err)
	}
	return sum
}

// rawRows are a raw-store query's rows as tab-separated lines.
func rawRows(t testing.TB, home, q string, args ...any) []string {
	t.Helper()
	return storetest.Rows(t, home, kb.Raw, q, args...)
}

// rawValue is a one-value raw-store query.
func rawValue[T any](t testing.TB, home, q string, args ...any) T {
	t.Helper()
	s, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v T
	if err := s.DB.QueryRow(q, args...).Scan(&v); err != nil && err != sql.ErrNoRows {
		t.Fatalf("%s: %v", q, err)
	}
	return v
}

func approx(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func money(x float64) string { return fmt.Sprintf("$%.9f", x) }
