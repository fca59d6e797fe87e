package retrieval_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/ingest"
	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// recorder keeps what the pipeline records.
type recorder struct {
	mu        sync.Mutex
	decisions []kb.Decision
	calls     []kb.LLMCall
}

func (r *recorder) record(_ context.Context, d []kb.Decision, c []kb.LLMCall) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.decisions, r.calls = append(r.decisions, d...), append(r.calls, c...)
	return nil
}

// pipelineFixture indexes a small repository: store.py is imported by
// three files; cache.py is not connected to it.
func pipelineFixture(t *testing.T, srv *fakellm.Server, lim retrieval.Limits) (*retrieval.Pipeline, *recorder) {
	ctx := context.Background()
	r := gittest.New(t)
	r.Write("app/store.py", "class Store:\n    def get(self, key):\n        return self.data[key]\n")
	for _, f := range []string{"a", "b", "c"} {
		r.Write("app/"+f+".py", "from app.store import Store\n\n\ndef use_"+f+"():\n    return Store().get(1)\n")
	}
	r.Write("app/cache.py", "# why: entries expire lazily, on read\ndef expire(entries, now):\n    return [e for e in entries if e.deadline > now]\n")
	r.Commit("Create the app")
	home := storetest.Home(t)
	if _, err := ingest.IndexRepos(ctx, home, []string{r.Dir}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	s, err := kb.Open(ctx, home, kb.Curated, kb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	k := kb.NewKnowledgeBase(s.DB)
	repo, err := k.RepoByPath(ctx, kb.CanonicalPath(r.Dir))
	if err != nil {
		t.Fatal(err)
	}
	g, err := retrieval.LoadKnowledgeGraph(ctx, s.DB, repo.ID, retrieval.GraphOptions{LanguageOf: lang.LanguageOf, Source: func(p string) bool { return lang.LanguageOf(p) != "" }})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := kb.OpenSession(home, "run1")
	if err != nil {
		t.Fatal(err)
	}
	client := scopeClient(t, srv)
	rec := &recorder{}
	return &retrieval.Pipeline{KB: k, Repo: *repo, Graph: g, Limits: lim, Budget: llm.Budget{ContextWindow: 32_000, ReservedTokens: 4000},
		MaxRefinements: 1, Client: func(string) (llm.Client, error) { return client, nil }, Record: rec.record, Session: sess,
		Execute: schema.StagePlan, Log: slog.New(slog.DiscardHandler),
		Render: func(p prompt.Package) prompt.Prompt {
			return prompt.PlanPrompt(prompt.PlanAtomic, prompt.PlanInput{Task: "t", Files: p.Files})
		}}, rec
}

// stageReplies answers each stage by its system prompt.
func stageReplies(t *testing.T, replies map[string]string) *fakellm.Server {
	srv := fakellm.New(t)
	srv.SetDefault(func(req fakellm.Request) fakellm.Reply {
		for prefix, text := range replies {
			if strings.HasPrefix(req.Messages[0].Content, prefix) {
				return fakellm.Reply{Text: text}
			}
		}
		t.Errorf("unexpected prompt %.60q", req.Messages[0].Content)
		return fakellm.Reply{Status: 500}
	})
	return srv
}

// Run records a decision for every candidate and for every file a cap
// left out; Reenter adds what a refinement request's evidence names,
// tiers its symbols, assembles again and logs the merge, within the bound.
func TestPipelineRunAndRefinement(t *testing.T) {
	ctx := context.Background()
	srv := stageReplies(t, map[string]string{
		"You read a coding task":  `{"summary": "", "files": [], "symbols": [], "keywords": []}`,
		"You select the files":    `{"relevant": ["app/store.py"]}`,
		"You decide how much":     `{"symbols": {"app/store.py:Store.get": "primary", "app/cache.py:expire": "primary"}}`,
		"You plan a code change":  `{}`,
		"You revise a plan after": `{}`,
	})
	lim := retrieval.DefaultLimits
	lim.Dependencies, lim.Lexical = 1, 0
	p, rec := pipelineFixture(t, srv, lim)
	c, err := p.Run(ctx, "run1", "Let `Store` return a default")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.KeptPaths(); !slices.Equal(got, []string{"app/store.py"}) {
		t.Fatalf("kept %v", got)
	}
	var caps []string
	for _, d := range rec.decisions {
		if strings.HasPrefix(d.Reason, "cap:") {
			caps = append(caps, d.Reason)
			if d.Included || d.Tier != "2" || d.Rank < 2 {
				t.Errorf("cap decision %+v", d)
			}
		}
	}
	if len(caps) != 2 || !strings.HasPrefix(caps[0], "cap: tier 2 keeps 1 candidates (imports app/store.py)") {
		t.Errorf("two importers past the cap of one, got %q", caps)
	}
	if len(c.Package.Files) != 1 || !strings.Contains(c.Package.Files[0].Symbols[0].Text, "return self.data[key]") {
		t.Errorf("package %+v: want Store.get in full", c.Package.Files)
	}

	// The caller (solve) writes the request; Reenter reads it.
	req := schema.RefinementRequest{Reason: "NameError in the test", MissingSymbols: []string{"expire"}}
	if err := p.Session.Put(retrieval.KeyRefinementRequest, req); err != nil {
		t.Fatal(err)
	}
	before := len(rec.decisions)
	c2, err := p.Reenter(ctx, "run1")
	if err != nil {
		t.Fatal(err)
	}
	if got := c2.KeptPaths(); !slices.Equal(got, []string{"app/store.py", "app/cache.py"}) || c2.Refinements != 1 {
		t.Fatalf("after refinement: kept %v, refinements %d", got, c2.Refinements)
	}
	added := rec.decisions[before]
	if added.Stage != "scope" || !added.Included || added.Reason != "refinement: defines expire" {
		t.Errorf("the refinement's scope decision: %+v", added)
	}
	if c2.Symbols["app/cache.py:expire"] != "primary" || c2.Symbols["app/store.py:Store.get"] != "primary" {
		t.Errorf("tiers after refinement: %v", c2.Symbols)
	}
	last := rec.calls[len(rec.calls)-1]
	if last.CallType != "refinement_merge" || !strings.Contains(*last.Response, "app/cache.py (refinement: defines expire)") || !strings.Contains(last.Prompt, `"missing_symbols":["expire"]`) {
		t.Errorf("merge row %+v", last)
	}
	var saved retrieval.Context
	if ok, err := p.Session.Get(retrieval.KeyFinalContext, &saved); !ok || err != nil || saved.Refinements != 1 || len(saved.Package.Files) != 2 ||
		!slices.ContainsFunc(saved.Package.Files[1].Rationale, func(s string) bool { return strings.Contains(s, "expire lazily") }) {
		t.Errorf("final_context in the session: %+v (%v)", saved.Package.Files, err)
	}

	// The bound: max_refinement_loops is 1.
	if _, err := p.Reenter(ctx, "run1"); !errors.Is(err, retrieval.ErrRefinementLimit) {
		t.Errorf("a second refinement: %v, want ErrRefinementLimit", err)
	}
}

// A refinement request without evidence is refused.
func TestRefinementNeedsEvidence(t *testing.T) {
	srv := stageReplies(t, map[string]string{
		"You read a coding task": `{"summary": "", "files": [], "symbols": [], "keywords": []}`,
		"You select the files":   `{"relevant": ["app/store.py"]}`,
		"You decide how much":    `{"symbols": {}}`,
	})
	p, _ := pipelineFixture(t, srv, retrieval.DefaultLimits)
	if _, err := p.Run(context.Background(), "run1", "Let `Store` return a default"); err != nil {
		t.Fatal(err)
	}
	if err := p.Session.Put(retrieval.KeyRefinementRequest, schema.RefinementRequest{Reason: "needs more context"}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Reenter(context.Background(), "run1"); err == nil || !strings.Contains(err.Error(), "evidence") {
		t.Errorf("no evidence: %v", err)
	}
}
