package llm_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	craconfig "github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/internal/storetest"
)

// scopeV2 is the champion of scope in these tests.
var scopeV2 = craconfig.Adapter{Name: "scope", Version: 2, SHA256: "5c0fe", Path: "/adapters/scope/2"}

// shapes are the three servers a champion is asked of, each as a
// config (provider, [adapters] server) against a fake that loaded
// scope-v2 as that server would.
var shapes = []struct {
	server, provider string
	url              func(*fakellm.Server) string
}{
	{craconfig.ServerVLLM, llm.ProviderOpenAICompat, (*fakellm.Server).OpenAIURL},
	{craconfig.ServerLlamaCpp, llm.ProviderOpenAICompat, (*fakellm.Server).OpenAIURL},
	{craconfig.ServerOllama, llm.ProviderOllama, (*fakellm.Server).OllamaURL},
}

// routedServer is a fake serving the base models and scope-v2 (llama.cpp
// lists it by a GGUF file in its directory).
func routedServer(t *testing.T) *fakellm.Server {
	srv := fakellm.New(t)
	srv.SetModels("base", "coder")
	srv.SetAdapters(map[string]fakellm.AdapterBehaviour{
		"other-v1":           {Path: "/adapters/other/1/other.gguf"},
		scopeV2.ServedName(): {Path: scopeV2.Path + "/scope-v2.gguf"},
	})
	return srv
}

// routedConfig routes scope to scope-v2 on the server at url.
func routedConfig(server, provider, url string) craconfig.Config {
	cfg := craconfig.Default()
	m := &cfg.Models
	m.Provider, m.BaseURL, m.Reasoning, m.Coding = provider, url, "base", "coder"
	m.TimeoutSeconds, m.MaxRetries = 10, 0
	m.Champions = map[string]craconfig.Adapter{"scope": scopeV2}
	if server != craconfig.ServerOllama {
		cfg.Adapters.Server = server
	}
	return cfg
}

// Over real HTTP, in each server's shape: the stage with a champion is
// answered by its adapter and the stage without by the base model, and
// the logged rows say which adapter answered (NULL for the base).
func TestStageRoutedToItsChampion(t *testing.T) {
	for _, sh := range shapes {
		t.Run(sh.server, func(t *testing.T) {
			srv := routedServer(t)
			db, log := callStore(t)
			clients := llm.NewStageClients(llm.NewRouter(routedConfig(sh.server, sh.provider, sh.url(srv))), nil, 0.1, log)
			for _, stage := range []string{"scope", "precision", "scope"} {
				c, err := clients.Get(stage)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := c.Complete(t.Context(), llm.Request{Prompt: "which files?", TaskID: "t:" + stage, CallType: stage, StageName: stage}); err != nil {
					t.Fatalf("%s: %v", stage, err)
				}
			}
			if err := clients.Close(); err != nil {
				t.Fatal(err)
			}
			var chats []fakellm.Request
			lists := 0
			for _, r := range srv.Requests() {
				if r.Path == "/lora-adapters" {
					lists++
					continue
				}
				chats = append(chats, r)
			}
			if len(chats) != 3 {
				t.Fatalf("%d chat requests, want 3", len(chats))
			}
			wantModel := map[string]string{craconfig.ServerVLLM: "scope-v2", craconfig.ServerLlamaCpp: "base", craconfig.ServerOllama: "scope-v2"}[sh.server]
			for i, r := range []fakellm.Request{chats[0], chats[2]} {
				if r.Adapter != "scope-v2" || r.Model != wantModel {
					t.Errorf("scope call %d: adapter %q model %q, want scope-v2 on %s", i, r.Adapter, r.Model, wantModel)
				}
			}
			if r := chats[1]; r.Adapter != "" || r.Model != "base" {
				t.Errorf("precision: adapter %q model %q, want the base", r.Adapter, r.Model)
			}
			if sh.server == craconfig.ServerLlamaCpp {
				// The base call switches every adapter off; the list is read once per client.
				if chats[1].LoRA == nil || len(chats[1].LoRA) != 0 || lists != 1 {
					t.Errorf("llama.cpp: base call lora %v (want []), /lora-adapters read %d times (want 1)", chats[1].LoRA, lists)
				}
			} else if lists != 0 || chats[0].LoRA != nil {
				t.Errorf("%s: /lora-adapters read %d times, lora %v sent: llama.cpp's shape only", sh.server, lists, chats[0].LoRA)
			}
			got := storetest.RowsOf(t, db, `SELECT stage_name, model, coalesce(adapter, 'NULL'),
				coalesce(adapter_version::VARCHAR, 'NULL'), coalesce(adapter_sha256, 'NULL') FROM retrieval_llm_calls ORDER BY stage_name, id`)
			want := []string{"precision\tbase\tNULL\tNULL\tNULL", "scope\tbase\tscope\t2\t5c0fe", "scope\tbase\tscope\t2\t5c0fe"}
			if !slices.Equal(got, want) {
				t.Errorf("logged rows:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// A stage's [models.overrides] entry wins over its champion: the
// override's model answers, no adapter.
func TestOverrideWinsOverChampion(t *testing.T) {
	for _, sh := range shapes {
		t.Run(sh.server, func(t *testing.T) {
			srv := routedServer(t)
			cfg := routedConfig(sh.server, sh.provider, sh.url(srv))
			cfg.Models.Overrides = map[string]string{"scope": "coder"}
			mc, err := llm.NewRouter(cfg).Resolve(llm.RoleReasoning, "scope")
			if err != nil {
				t.Fatal(err)
			}
			if mc.Adapter != nil || mc.Model != "coder" {
				t.Fatalf("resolved %s with adapter %v, want the override and no adapter", mc.Model, mc.Adapter)
			}
			c, _ := newClient(t, mc)
			if _, err := c.Complete(t.Context(), llm.Request{Prompt: "p"}); err != nil {
				t.Fatal(err)
			}
			if r := srv.Requests()[len(srv.Requests())-1]; r.Adapter != "" || r.Model != "coder" {
				t.Errorf("asked adapter %q of model %q, want coder", r.Adapter, r.Model)
			}
		})
	}
}

// On llama.cpp's server the adapter's id is the one GET /lora-adapters
// lists for a file in its directory; an adapter the server did not load
// is a clear error, sent no chat request and not retried.
func TestLlamaCppAdapterByPath(t *testing.T) {
	srv := routedServer(t)
	cfg := routedConfig(craconfig.ServerLlamaCpp, llm.ProviderOpenAICompat, srv.OpenAIURL())
	mc, err := llm.NewRouter(cfg).Resolve(llm.RoleReasoning, "scope")
	if err != nil {
		t.Fatal(err)
	}
	c, _ := newClient(t, mc)
	if _, err := c.Complete(t.Context(), llm.Request{Prompt: "p"}); err != nil {
		t.Fatal(err)
	}
	// Served names sort other-v1 before scope-v2: ids 0 and 1.
	if r := srv.Requests()[1]; len(r.LoRA) != 1 || r.LoRA[0] != (fakellm.LoRA{ID: 1, Scale: 1}) {
		t.Errorf("lora %v, want [{1 1}]", r.LoRA)
	}

	missing := craconfig.Adapter{Name: "scope", Version: 3, SHA256: "77", Path: "/adapters/scope/3"}
	cfg.Models.Champions["scope"] = missing
	mc, err = llm.NewRouter(cfg).Resolve(llm.RoleReasoning, "scope")
	if err != nil {
		t.Fatal(err)
	}
	mc.MaxRetries = 3
	c, _ = newClient(t, mc)
	before := srv.Calls()
	_, err = c.Complete(t.Context(), llm.Request{Prompt: "p"})
	e := asError(t, err)
	for _, want := range []string{"adapter scope@3 is not loaded by the llama.cpp server", "no adapter under /adapters/scope/3",
		"0 /adapters/other/1/other.gguf, 1 /adapters/scope/2/scope-v2.gguf", "--lora /adapters/scope/3/"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	if !errors.Is(err, llm.ErrModelNotFound) || e.Retryable || e.Attempts != 1 || srv.Calls() != before {
		t.Errorf("kind %v retryable %v attempts %d, %d chat requests: want a model-not-found, not retried, unsent",
			errors.Is(err, llm.ErrModelNotFound), e.Retryable, e.Attempts, srv.Calls()-before)
	}
}

// A served name the server lacks is named in the error with what to do,
// in both by-name shapes.
func TestMissingServedNameSaysHowToServeIt(t *testing.T) {
	for _, sh := range shapes {
		if sh.server == craconfig.ServerLlamaCpp {
			continue
		}
		t.Run(sh.server, func(t *testing.T) {
			srv := routedServer(t)
			cfg := routedConfig(sh.server, sh.provider, sh.url(srv))
			cfg.Models.Champions["scope"] = craconfig.Adapter{Name: "scope", Version: 9, Path: "/adapters/scope/9"}
			mc, err := llm.NewRouter(cfg).Resolve(llm.RoleReasoning, "scope")
			if err != nil {
				t.Fatal(err)
			}
			c, _ := newClient(t, mc)
			_, err = c.Complete(t.Context(), llm.Request{Prompt: "p"})
			want := map[string]string{craconfig.ServerVLLM: "--lora-modules scope-v9=/adapters/scope/9",
				craconfig.ServerOllama: "ollama create scope-v9"}[sh.server]
			if !errors.Is(err, llm.ErrModelNotFound) || !strings.Contains(err.Error(), "scope-v9") || !strings.Contains(err.Error(), want) {
				t.Errorf("%v: want model-not-found naming scope-v9 and %q", err, want)
			}
		})
	}
}

// `cra models check` pings every champion through its route and names
// the stage and adapter of one the server does not serve.
func TestCheckModelsPingsChampions(t *testing.T) {
	for _, sh := range shapes {
		t.Run(sh.server, func(t *testing.T) {
			srv := routedServer(t)
			cfg := routedConfig(sh.server, sh.provider, sh.url(srv))
			cfg.Models.Champions["implement"] = craconfig.Adapter{Name: "impl", Version: 1, Path: "/adapters/impl/1"}
			checks, err := llm.CheckModels(t.Context(), cfg, llm.PingOptions{Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range checks {
				got = append(got, fmt.Sprintf("%s %s %s %v", strings.Join(c.Uses, ","), c.Model, c.Adapter, c.OK))
			}
			want := []string{"coding coder  true", "reasoning base  true", "stage implement coder impl@1 false", "stage scope base scope@2 true"}
			if !slices.Equal(got, want) {
				t.Fatalf("checks %q, want %q", got, want)
			}
			failed := checks[2]
			if !strings.Contains(failed.Error, "impl") {
				t.Errorf("the failed champion's error %q does not name the adapter", failed.Error)
			}
			ue := &llm.UnansweredError{Checks: []*llm.ModelCheck{failed}}
			if msg := ue.Error(); !strings.Contains(msg, "adapter impl@1 (stage implement, ") {
				t.Errorf("%q does not name the stage and adapter", msg)
			}
			asked := map[string]bool{}
			for _, r := range srv.Requests() {
				asked[r.Adapter] = asked[r.Adapter] || r.Path != "/lora-adapters"
			}
			if !asked["scope-v2"] {
				t.Error("the scope champion was not pinged through its route")
			}
		})
	}
}
