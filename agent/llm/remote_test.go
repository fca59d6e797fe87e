package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/fakellm"
)

func TestAuthorizationHeader(t *testing.T) {
	tests := []struct {
		provider, keyEnv, want string
	}{
		{llm.ProviderRemoteAPI, testKeyEnv, "Bearer " + testKey},
		{llm.ProviderOpenAICompat, testKeyEnv, "Bearer " + testKey}, // a vLLM started with --api-key
		{llm.ProviderOpenAICompat, "", ""},
		{llm.ProviderOllama, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.provider+"/"+tt.keyEnv, func(t *testing.T) {
			srv := fakellm.New(t)
			cfg := config(tt.provider, srv)
			cfg.APIKeyEnv = tt.keyEnv
			c, _ := newClient(t, cfg)
			resp, err := c.Complete(t.Context(), llm.Request{Prompt: "hi"})
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if got := srv.Requests()[0].Authorization; got != tt.want {
				t.Errorf("Authorization = %q, want %q", got, tt.want)
			}
			if s := fmt.Sprintf("%v %+v %#v", resp, resp, c); strings.Contains(s, testKey) {
				t.Errorf("the key shows in the response or client: %s", s)
			}
		})
	}
}

// TestKeyNeverInErrors makes the server echo the key back in every way it
// can and checks that no error text, at any depth of the chain, carries it.
func TestKeyNeverInErrors(t *testing.T) {
	echo := "Incorrect API key provided: " + testKey
	tests := []struct {
		name  string
		reply fakellm.Reply
		kind  error
		// masked: the message quotes the server, so the key must show as
		// [REDACTED] (the 404 message does not quote it).
		masked bool
	}{
		{"401 echoing the key", fakellm.Reply{Status: 401, Error: echo}, llm.ErrAuth, true},
		{"400 echoing the key", fakellm.Reply{Status: 400, Error: echo}, llm.ErrRejected, true},
		{"500 echoing the key", fakellm.Reply{Status: 500, Error: echo}, llm.ErrServer, true},
		{"non-JSON error body", fakellm.Reply{Status: 403, Body: "<html>" + echo + "</html>"}, llm.ErrAuth, true},
		{"malformed 200", fakellm.Reply{Body: `{"choices": [` + echo}, llm.ErrMalformedResponse, true},
		{"404 naming the key", fakellm.Reply{Status: 404, Error: "The model `" + testKey + "` does not exist."}, llm.ErrModelNotFound, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakellm.New(t)
			srv.SetDefault(func(fakellm.Request) fakellm.Reply { return tt.reply })
			cfg := config(llm.ProviderRemoteAPI, srv)
			cfg.MaxRetries = 1
			c, _ := newClient(t, cfg)
			_, err := c.Complete(t.Context(), llm.Request{Prompt: "hi"})
			if err == nil {
				t.Fatal("want an error")
			}
			if !errors.Is(err, tt.kind) {
				t.Errorf("error %v lost its kind %v", err, tt.kind)
			}
			assertNoKey(t, err)
			if tt.masked && !strings.Contains(err.Error(), "[REDACTED]") {
				t.Errorf("error %q: want the echoed key masked, not dropped silently", err)
			}
		})
	}
	t.Run("connection refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ln.Close()
		cfg := llm.ModelConfig{Provider: llm.ProviderRemoteAPI, Model: "m", BaseURL: "http://" + ln.Addr().String() + "/v1",
			APIKeyEnv: testKeyEnv}
		c, _ := newClient(t, cfg)
		_, err = c.Complete(t.Context(), llm.Request{Prompt: "hi"})
		if err == nil {
			t.Fatal("want an error")
		}
		assertNoKey(t, err)
	})
	t.Run("missing variable", func(t *testing.T) {
		cfg := llm.ModelConfig{Provider: llm.ProviderRemoteAPI, Model: "m", BaseURL: "https://x/v1", APIKeyEnv: "CRA_MISSING"}
		_, err := llm.New(cfg, llm.WithLookupEnv(func(name string) (string, bool) {
			if name == testKeyEnv {
				return testKey, true
			}
			return "", false
		}))
		if err == nil || !strings.Contains(err.Error(), "CRA_MISSING") {
			t.Fatalf("error %v does not name CRA_MISSING", err)
		}
		assertNoKey(t, err)
	})
}

// assertNoKey fails if the key appears in err or anything it wraps.
func assertNoKey(t *testing.T, err error) {
	t.Helper()
	texts := []string{fmt.Sprintf("%v|%+v|%#v|%s|%q", err, err, err, err, err)}
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		texts = append(texts, e.Error(), fmt.Sprintf("%+v", e))
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		case interface{ Unwrap() []error }:
			for _, inner := range u.Unwrap() {
				walk(inner)
			}
		}
	}
	walk(err)
	if e := (*llm.Error)(nil); errors.As(err, &e) {
		texts = append(texts, fmt.Sprintf("%+v", *e))
	}
	for _, s := range texts {
		if strings.Contains(s, testKey) {
			t.Fatalf("the API key leaks into an error: %s", s)
		}
	}
}

// OpenAI reasoning models (o1, o3, gpt-5 …) as teachers get
// max_completion_tokens and no temperature; other models keep max_tokens and
// the configured temperature.
func TestReasoningModelsGetMaxCompletionTokensAndNoTemperature(t *testing.T) {
	t.Setenv(testKeyEnv, testKey)
	for _, tc := range []struct {
		model     string
		reasoning bool
	}{{"o3-mini", true}, {"o1", true}, {"gpt-5", true}, {"gpt-5.1-codex", true}, {"gpt-4o", false}, {"qwen3:1.7b", false}, {"oss-20b", false}} {
		t.Run(tc.model, func(t *testing.T) {
			if got := llm.ReasoningModel(tc.model); got != tc.reasoning {
				t.Fatalf("ReasoningModel(%q) = %v", tc.model, got)
			}
			srv := fakellm.New(t, fakellm.Reply{Text: "ok"})
			cfg := config(llm.ProviderRemoteAPI, srv)
			cfg.Model = tc.model
			c, _ := newClient(t, cfg)
			if _, err := c.Complete(context.Background(), llm.Request{Prompt: "p"}); err != nil {
				t.Fatal(err)
			}
			body := map[string]any{}
			if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
				t.Fatal(err)
			}
			_, hasTemp := body["temperature"]
			_, hasMax := body["max_tokens"]
			_, hasCompletion := body["max_completion_tokens"]
			if tc.reasoning && (hasTemp || hasMax || !hasCompletion) {
				t.Errorf("reasoning model sent %s: want max_completion_tokens only", srv.Requests()[0].Body)
			}
			if !tc.reasoning && (!hasTemp || !hasMax || hasCompletion) {
				t.Errorf("model sent %s: want max_tokens and temperature", srv.Requests()[0].Body)
			}
		})
	}
}
