package retrieval_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

func scopeClient(t *testing.T, srv *fakellm.Server) llm.Client {
	t.Helper()
	c, err := llm.New(llm.ModelConfig{Provider: llm.ProviderOllama, BaseURL: srv.OllamaURL(), Model: "r:1b", Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

var scopeCands = []schema.ScopeCandidate{
	{Path: "app/store.py", Tier: 1, Rank: 1, Reason: "defines Store", Symbols: []string{"Store"}},
	{Path: "app/api.py", Tier: 2, Rank: 1, Reason: "imports app/store.py", Symbols: []string{"handler"}},
	{Path: "app/util.py", Tier: 4, Rank: 1, Reason: "shares words with the task: default", Symbols: []string{}},
}

var scopeIDs = map[string]int64{"app/store.py": 1, "app/api.py": 2, "app/util.py": 3}

func TestScopeKeepsWhatTheModelKeepsAndDecidesEveryCandidate(t *testing.T) {
	srv := fakellm.New(t, fakellm.Reply{Text: `{"relevant": ["app/api.py", "app/store.py", "app/nope.py"]}`})
	res, err := retrieval.Scope(context.Background(), scopeClient(t, srv), "run1", "Let Store.get return a default", scopeCands, scopeIDs)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Kept) != 2 || res.Kept[0].Path != "app/store.py" || res.Kept[1].Path != "app/api.py" {
		t.Errorf("kept %+v: want store then api, in expansion order, and no invented path", res.Kept)
	}
	if len(res.Decisions) != 3 {
		t.Fatalf("%d decisions, want one per candidate", len(res.Decisions))
	}
	for i, d := range res.Decisions {
		if d.TaskID != "run1" || d.Stage != "scope" || d.FileID != int64(i+1) || d.Included != (i < 2) || d.Tier == "" {
			t.Errorf("decision %d: %+v", i, d)
		}
	}
	req := srv.Requests()[0]
	if !strings.Contains(req.Messages[len(req.Messages)-1].Content, "app/util.py (tier 4") {
		t.Errorf("the prompt lacks the tier 4 candidate: %q", req.Messages[len(req.Messages)-1].Content)
	}
}

func TestScopeAsksOnceMoreThenGivesUp(t *testing.T) {
	srv := fakellm.New(t, fakellm.Reply{Text: "Sure! The store."}, fakellm.Reply{Text: `{"relevant": ["app/store.py"]}`})
	res, err := retrieval.Scope(context.Background(), scopeClient(t, srv), "run1", "t", scopeCands, scopeIDs)
	if err != nil || len(res.Kept) != 1 {
		t.Fatalf("after one unusable answer: %+v, %v", res, err)
	}
	second := srv.Requests()[1].Messages
	if !strings.Contains(second[len(second)-1].Content, "could not be used") {
		t.Errorf("the second call does not say why the first answer failed: %q", second[len(second)-1].Content)
	}

	srv = fakellm.New(t, fakellm.Reply{Text: "no"}, fakellm.Reply{Text: "still no"})
	_, err = retrieval.Scope(context.Background(), scopeClient(t, srv), "run1", "t", scopeCands, scopeIDs)
	var ue *retrieval.UnusableAnswerError
	if !errors.As(err, &ue) || ue.Stage != "scope" || srv.Calls() != 2 {
		t.Errorf("two unusable answers: %v after %d calls; want an UnusableAnswerError after 2", err, srv.Calls())
	}
}

func TestPrecisionTiersEverySymbol(t *testing.T) {
	parent := int64(10)
	cands := retrieval.SymbolCandidates([]kb.Symbol{
		{ID: 10, FileID: 1, FilePath: "app/store.py", Name: "Store", Kind: "class", Signature: "class Store:"},
		{ID: 11, FileID: 1, FilePath: "app/store.py", Name: "get", Kind: "method", Signature: "def get(self, key):", ParentID: &parent},
		{ID: 12, FileID: 1, FilePath: "app/store.py", Name: "make_store", Kind: "function", Signature: "def make_store():"},
	})
	if cands[1].QualifiedName != "Store.get" {
		t.Fatalf("qualified name %q, want Store.get", cands[1].QualifiedName)
	}
	// The deterministic guess: get is named, so primary; make_store calls
	// it, so supporting; Store is no type named in get's signature.
	guess := retrieval.GuessTiers(cands, map[string]bool{"get": true}, []kb.SymbolReference{{Caller: 12, Callee: 11, Kind: "call"}})
	wantGuess := map[string]string{"app/store.py:Store": "excluded", "app/store.py:Store.get": "primary", "app/store.py:make_store": "supporting"}
	if !reflect.DeepEqual(guess, wantGuess) {
		t.Errorf("guess %v, want %v", guess, wantGuess)
	}
	srv := fakellm.New(t, fakellm.Reply{Text: `{"symbols": {"app/store.py:Store.get": "primary", "app/store.py:Store": "type_context", "app/x.py:nope": "primary"}}`})
	res, err := retrieval.Precision(context.Background(), scopeClient(t, srv), "run1", "Let Store.get return a default", cands, guess)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"app/store.py:Store": "type_context", "app/store.py:Store.get": "primary", "app/store.py:make_store": "excluded"}
	if !reflect.DeepEqual(res.Tiers, want) {
		t.Errorf("tiers %v, want %v", res.Tiers, want)
	}
	if len(res.Decisions) != 3 || *res.Decisions[1].SymbolID != 11 || res.Decisions[1].DetailLevel != "primary" || res.Decisions[2].Included ||
		res.Decisions[2].Reason != "tiered by the model (deterministic guess: supporting)" || res.Guessed {
		t.Errorf("decisions %+v", res.Decisions)
	}

	// Two unusable answers: the guess stands in, and the decisions say so.
	srv = fakellm.New(t, fakellm.Reply{Text: "no"}, fakellm.Reply{Text: "still no"})
	res, err = retrieval.Precision(context.Background(), scopeClient(t, srv), "run1", "Let Store.get return a default", cands, guess)
	if err != nil || !res.Guessed || !reflect.DeepEqual(res.Tiers, wantGuess) || !strings.HasPrefix(res.Decisions[0].Reason, "deterministic guess") {
		t.Errorf("unusable answers: %+v, %v; want the guess", res, err)
	}
}

// An answer the client refuses unread (not the provider's JSON, or over
// its size limit) is unusable at once: no second ask, which would bring
// the same; a second answer refused after a parse failure is unusable too.
func TestScopeRefusedAnswerIsUnusable(t *testing.T) {
	for _, tc := range []struct {
		name    string
		replies []fakellm.Reply
		calls   int
		refused bool
	}{
		{"refused first", []fakellm.Reply{{Malformed: true}}, 1, true},
		{"refused second", []fakellm.Reply{{Text: "no"}, {Malformed: true}}, 2, true},
		{"parsed twice", []fakellm.Reply{{Text: "no"}, {Text: "still no"}}, 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakellm.New(t, tc.replies...)
			_, err := retrieval.Scope(context.Background(), scopeClient(t, srv), "run1", "t", scopeCands, scopeIDs)
			var ue *retrieval.UnusableAnswerError
			if !errors.As(err, &ue) || ue.Refused != tc.refused || srv.Calls() != tc.calls {
				t.Fatalf("%v after %d calls; want an UnusableAnswerError (refused %v) after %d", err, srv.Calls(), tc.refused, tc.calls)
			}
			if twice := strings.Contains(err.Error(), "twice"); twice == tc.refused {
				t.Errorf("message %q", err)
			}
		})
	}
}
