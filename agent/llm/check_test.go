package llm_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	craconfig "github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/fakellm"
)

// CheckStages pings each distinct model the stages use once, with no
// retry, and names every one that did not answer with the next step.
func TestCheckStages(t *testing.T) {
	down, err := fakellm.Start("")
	if err != nil {
		t.Fatal(err)
	}
	down.Close()
	for _, tc := range []struct {
		name      string
		stages    []string
		overrides map[string]string
		replies   []fakellm.Reply
		downURL   bool
		timeout   time.Duration
		pinged    []string // models asked, in order
		failed    []string // error fragments, "" when it passes
	}{
		{name: "one model for every reasoning stage", stages: []string{"task_analysis", "scope", "plan"},
			replies: []fakellm.Reply{{Text: "ok"}}, pinged: []string{"r:1b"}},
		{name: "reasoning and coding", stages: []string{"scope", "implement"},
			replies: []fakellm.Reply{{Text: "ok"}, {Text: "ok"}}, pinged: []string{"r:1b", "c:1b"}},
		{name: "an override is its own endpoint", stages: []string{"scope", "precision"}, overrides: map[string]string{"precision": "p:1b"},
			replies: []fakellm.Reply{{Text: "ok"}, {Text: "ok"}}, pinged: []string{"r:1b", "p:1b"}},
		{name: "a stage not needed is not pinged", stages: []string{"implement"}, overrides: map[string]string{"scope": "s:1b"},
			replies: []fakellm.Reply{{Text: "ok"}}, pinged: []string{"c:1b"}},
		{name: "a 500 is not retried", stages: []string{"scope", "implement"},
			replies: []fakellm.Reply{{Status: 500}, {Text: "ok"}}, pinged: []string{"r:1b", "c:1b"},
			failed: []string{"model r:1b at URL (ollama) did not answer: "}},
		{name: "a model the server lacks", stages: []string{"scope"},
			replies: []fakellm.Reply{{Status: 404}}, pinged: []string{"r:1b"}, failed: []string{"model r:1b at URL", "ollama pull r:1b"}},
		{name: "a slow answer past the timeout", stages: []string{"scope"}, timeout: 200 * time.Millisecond,
			replies: []fakellm.Reply{{Text: "ok", Delay: 5 * time.Second}}, pinged: []string{"r:1b"}, failed: []string{"model r:1b at URL"}},
		{name: "the server is down", stages: []string{"scope", "implement"}, downURL: true,
			failed: []string{"model r:1b at URL (ollama) did not answer", "; model c:1b at URL (ollama) did not answer"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakellm.New(t, tc.replies...)
			url := srv.OllamaURL()
			if tc.downURL {
				url = down.OllamaURL()
			}
			models := craconfig.Models{Provider: llm.ProviderOllama, BaseURL: url, Coding: "c:1b", Reasoning: "r:1b",
				Overrides: tc.overrides, TimeoutSeconds: 60, MaxRetries: 3}
			start := time.Now()
			err := llm.CheckStages(t.Context(), craconfig.Config{Models: models}, tc.stages, llm.PingOptions{Timeout: tc.timeout})
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("took %v: the ping waited past its timeout or retried", took)
			}
			var got []string
			for _, r := range srv.Requests() {
				got = append(got, r.Model)
				if last := r.Messages[len(r.Messages)-1].Content; last != llm.PingPrompt {
					t.Errorf("the ping asked %q", last)
				}
			}
			if !slices.Equal(got, tc.pinged) {
				t.Errorf("pinged %v, want %v", got, tc.pinged)
			}
			if len(tc.failed) == 0 {
				if err != nil {
					t.Errorf("%v; want every model answering", err)
				}
				return
			}
			var ue *llm.UnansweredError
			if !errors.As(err, &ue) {
				t.Fatalf("%v: want an UnansweredError", err)
			}
			msg := strings.ReplaceAll(err.Error(), url, "URL")
			for _, want := range append(tc.failed, ": start the server or fix [models] in config.toml; `cra models check` tests them all") {
				if !strings.Contains(msg, want) {
					t.Errorf("%q lacks %q", msg, want)
				}
			}
		})
	}
}

// A ping goes through the client factory the command's runs use.
func TestCheckStagesUsesTheFactory(t *testing.T) {
	var built []llm.ModelConfig
	factory := func(cfg llm.ModelConfig) (llm.Client, error) {
		built = append(built, cfg)
		return nil, errors.New("no such model here")
	}
	models := craconfig.Models{Provider: llm.ProviderOllama, BaseURL: "http://127.0.0.1:1", Coding: "c:1b", Reasoning: "r:1b", MaxRetries: 3}
	err := llm.CheckStages(t.Context(), craconfig.Config{Models: models}, []string{"scope", "precision"}, llm.PingOptions{NewClient: factory, Timeout: time.Second})
	var ue *llm.UnansweredError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "no such model here") {
		t.Errorf("%v: want the factory's error", err)
	}
	if len(built) != 1 || built[0].MaxRetries != 0 || built[0].Timeout != time.Second {
		t.Errorf("built %+v: want one client, no retry, the ping's timeout", built)
	}
}
