package llm_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/fakellm"
)

func TestWireFormats(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			srv := fakellm.New(t,
				fakellm.Reply{Text: `{"answer": 42}`, PromptTokens: 11, CompletionTokens: 5},
				fakellm.Reply{Text: "second"})
			c, _ := newClient(t, config(p.name, srv))

			resp, err := c.Complete(t.Context(), llm.Request{System: "be terse", Prompt: "what is it?", JSON: true,
				CallType: "scope", StageName: "scope", TaskID: "t-1"})
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if resp.Text != `{"answer": 42}` || resp.Model != "qwen3:1.7b" || resp.Provider != p.name || resp.Attempts != 1 {
				t.Errorf("response = %+v", resp)
			}
			if resp.PromptTokens == nil || *resp.PromptTokens != 11 || resp.CompletionTokens == nil || *resp.CompletionTokens != 5 {
				t.Errorf("tokens = %v, %v; want 11, 5", resp.PromptTokens, resp.CompletionTokens)
			}

			// Per-request overrides of temperature and max tokens, no system prompt.
			if _, err := c.Complete(t.Context(), llm.Request{Prompt: "again", Temperature: ptr(0.7), MaxTokens: 32}); err != nil {
				t.Fatalf("Complete: %v", err)
			}

			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("server saw %d requests, want 2", len(reqs))
			}
			wantPath := map[string]string{llm.ProviderOllama: "/api/chat"}[p.name]
			if wantPath == "" {
				wantPath = "/v1/chat/completions"
			}
			first, second := reqs[0], reqs[1]
			if first.Path != wantPath || first.Model != "qwen3:1.7b" || first.Stream || !first.JSON {
				t.Errorf("request: path %s model %s stream %v json %v", first.Path, first.Model, first.Stream, first.JSON)
			}
			want := []fakellm.Message{{Role: "system", Content: "be terse"}, {Role: "user", Content: "what is it?"}}
			if len(first.Messages) != 2 || first.Messages[0] != want[0] || first.Messages[1] != want[1] {
				t.Errorf("messages = %+v, want %+v", first.Messages, want)
			}
			// Temperature 0 must be sent as 0, not left to the server's default.
			if first.Temperature == nil || *first.Temperature != 0 {
				t.Errorf("temperature = %v, want 0 sent explicitly", first.Temperature)
			}
			if first.MaxTokens == nil || *first.MaxTokens != 256 {
				t.Errorf("max tokens = %v, want 256 from the config", first.MaxTokens)
			}
			if second.Temperature == nil || *second.Temperature != 0.7 || second.MaxTokens == nil || *second.MaxTokens != 32 {
				t.Errorf("overrides: temperature %v, max tokens %v; want 0.7, 32", second.Temperature, second.MaxTokens)
			}
			if len(second.Messages) != 1 || second.Messages[0].Role != "user" || second.JSON {
				t.Errorf("second request: messages %+v json %v", second.Messages, second.JSON)
			}
			if p.name == llm.ProviderOllama && first.Options["num_ctx"] != 8192.0 {
				t.Errorf("ollama options = %v, want num_ctx 8192", first.Options)
			}
			for _, meta := range []string{"t-1", "scope"} {
				if strings.Contains(string(first.Body), meta) {
					t.Errorf("request body carries logging metadata %q: %s", meta, first.Body)
				}
			}
		})
	}
}

func TestUsageAbsent(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			srv := fakellm.New(t, fakellm.Reply{Text: "no counts", OmitUsage: true})
			c, _ := newClient(t, config(p.name, srv))
			resp, err := c.Complete(t.Context(), llm.Request{Prompt: "hi"})
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if resp.Text != "no counts" || resp.PromptTokens != nil || resp.CompletionTokens != nil {
				t.Errorf("response = %+v, want nil token counts", resp)
			}
		})
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  llm.ModelConfig
		want []string
	}{
		{"unknown provider", llm.ModelConfig{Provider: "anthropic", Model: "m", BaseURL: "http://x"},
			[]string{`"anthropic"`, "ollama", "openai_compat", "remote_api"}},
		{"no model", llm.ModelConfig{Provider: "ollama"}, []string{"no model"}},
		{"no base url", llm.ModelConfig{Provider: "openai_compat", Model: "m"}, []string{"no base URL"}},
		{"bad base url", llm.ModelConfig{Provider: "ollama", Model: "m", BaseURL: "localhost:11434"}, []string{"not an http(s) URL"}},
		{"negative retries", llm.ModelConfig{Model: "m", MaxRetries: -1}, []string{"max retries"}},
		{"remote without api_key_env", llm.ModelConfig{Provider: "remote_api", Model: "m", BaseURL: "https://x/v1"},
			[]string{"api_key_env"}},
		{"missing env var", llm.ModelConfig{Provider: "remote_api", Model: "m", BaseURL: "https://x/v1", APIKeyEnv: "CRA_NOT_SET_KEY"},
			[]string{"CRA_NOT_SET_KEY", "is not set"}},
		{"openai_compat env var missing", llm.ModelConfig{Provider: "openai_compat", Model: "m", BaseURL: "http://x/v1", APIKeyEnv: "VLLM_KEY"},
			[]string{"VLLM_KEY"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := llm.New(tt.cfg, llm.WithLookupEnv(lookupKey))
			if err == nil {
				c.Close()
				t.Fatal("New accepted the config")
			}
			if !errors.Is(err, llm.ErrInvalidConfig) {
				t.Errorf("error %v does not wrap ErrInvalidConfig", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestEmptyEnvVarIsMissing(t *testing.T) {
	cfg := llm.ModelConfig{Provider: "remote_api", Model: "m", BaseURL: "https://x/v1", APIKeyEnv: "CRA_EMPTY"}
	_, err := llm.New(cfg, llm.WithLookupEnv(func(string) (string, bool) { return " ", true }))
	if err == nil || !strings.Contains(err.Error(), "CRA_EMPTY is empty") {
		t.Errorf("error = %v, want it to name CRA_EMPTY as empty", err)
	}
}

func TestDefaultsAndProviders(t *testing.T) {
	c, err := llm.New(llm.ModelConfig{Model: "m"}) // ollama on localhost by default
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	defer c.Close()
	if s := c.(interface{ String() string }).String(); !strings.Contains(s, "ollama m at "+llm.DefaultOllamaURL) {
		t.Errorf("client = %s", s)
	}
	ps := llm.Providers()
	ps[0] = "changed"
	if llm.Providers()[0] != llm.ProviderOllama {
		t.Error("Providers returns the package's own slice")
	}
}

func TestCompleteAfterClose(t *testing.T) {
	srv := fakellm.New(t)
	c, _ := newClient(t, config(llm.ProviderOllama, srv))
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	_, err := c.Complete(t.Context(), llm.Request{Prompt: "hi"})
	if !errors.Is(err, llm.ErrClosed) || srv.Calls() != 0 {
		t.Errorf("after Close: err %v, %d calls; want ErrClosed and none", err, srv.Calls())
	}
}
