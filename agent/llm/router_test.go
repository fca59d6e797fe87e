package llm

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/config"
)

func TestRouterResolutionOrder(t *testing.T) {
	m := config.Default().Models
	m.Coding, m.Reasoning = "coder", "thinker"
	m.Temperature.Coding, m.Temperature.Reasoning = 0.2, 0.7
	m.Overrides = map[string]string{"scope": "thinker-scope-lora"}
	r := NewRouter(config.Config{Models: m})
	cases := []struct {
		role         Role
		stage, model string
		temp         float64
	}{
		{RoleReasoning, "scope", "thinker-scope-lora", 0.7}, // stage override wins
		{RoleReasoning, "precision", "thinker", 0.7},        // no override: the role's model
		{RoleCoding, "implement", "coder", 0.2},
		{RoleCoding, "", "coder", 0.2},
		{RoleCoding, "scope", "thinker-scope-lora", 0.2}, // overrides are by stage, whatever the role
	}
	for _, tc := range cases {
		got, err := r.Resolve(tc.role, tc.stage)
		if err != nil {
			t.Fatalf("%s/%s: %v", tc.role, tc.stage, err)
		}
		if got.Model != tc.model || got.Temperature != tc.temp {
			t.Errorf("%s/%s: model %q temp %g, want %q %g", tc.role, tc.stage, got.Model, got.Temperature, tc.model, tc.temp)
		}
		if got.ContextWindow != 32768 || got.Timeout != 300*time.Second || got.Provider != "ollama" {
			t.Errorf("%s/%s: shared settings not carried: %+v", tc.role, tc.stage, got)
		}
	}
	m.Coding = ""
	_, err := NewRouter(config.Config{Models: m}).Resolve(RoleCoding, "implement")
	if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), "cra init") {
		t.Errorf("missing model: %v", err)
	}
	if _, err := r.Resolve("poet", ""); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("unknown role: %v", err)
	}
}

func TestBudget(t *testing.T) {
	cfg := config.Default()
	cfg.Models.ContextWindow, cfg.Budget.ReservedTokens, cfg.Budget.SafetyMargin = 100, 40, 0.25
	b, err := NewBudget(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if b.ContextLimit() != 60 {
		t.Errorf("context limit %d", b.ContextLimit())
	}
	if got := b.Estimate(strings.Repeat("é", 40)); got != 13 { // 40 runes / 4 * 1.25 = 12.5 -> 13
		t.Errorf("estimate %d, want 13", got)
	}
	if err := b.Check(strings.Repeat("s", 80), strings.Repeat("p", 160), 40); err != nil { // 25+50+40 = 115 > 100
		if !errors.Is(err, ErrOverBudget) || !strings.Contains(err.Error(), "context window of 100") {
			t.Errorf("over budget error: %v", err)
		}
	} else {
		t.Error("an over-budget prompt passed the gate")
	}
	if err := b.Check(strings.Repeat("s", 32), strings.Repeat("p", 64), 40); err != nil { // 10+20+40 = 70
		t.Errorf("a fitting prompt was refused: %v", err)
	}
	cfg.Budget.ReservedTokens = 100
	if _, err := NewBudget(cfg); err == nil || !strings.Contains(err.Error(), "reserved_tokens must be < context_window") {
		t.Errorf("invalid budget accepted: %v", err)
	}
}

// A champion rides on its role's model, on the server [adapters] names
// (or the provider's own); an override, no stage or a provider that loads
// no adapters leaves it out.
func TestRouterChampions(t *testing.T) {
	a := config.Adapter{Name: "scope", Version: 2, SHA256: "ab", Path: "/a/scope/2"}
	cases := []struct {
		name, provider, server string
		overrides              map[string]string
		stage                  string
		model, adapter, served string
		wantServer             string
		err                    string
	}{
		{name: "champion on ollama", provider: "ollama", stage: "scope", model: "thinker", adapter: "scope@2", served: "scope-v2", wantServer: "ollama"},
		{name: "champion on vllm by default", provider: "openai_compat", stage: "scope", model: "thinker", adapter: "scope@2", served: "scope-v2", wantServer: "vllm"},
		{name: "champion on llama.cpp keeps the base", provider: "openai_compat", server: "llamacpp", stage: "scope", model: "thinker", adapter: "scope@2", served: "thinker", wantServer: "llamacpp"},
		{name: "no champion", provider: "ollama", stage: "precision", model: "thinker", served: "thinker", wantServer: "ollama"},
		{name: "no stage", provider: "ollama", stage: "", model: "thinker", served: "thinker", wantServer: "ollama"},
		{name: "override wins", provider: "ollama", overrides: map[string]string{"scope": "x"}, stage: "scope", model: "x", served: "x", wantServer: "ollama"},
		{name: "remote_api loads no adapter", provider: "remote_api", stage: "scope", err: "the remote_api provider loads no adapters"},
		{name: "remote_api without champion", provider: "remote_api", stage: "plan", model: "thinker", served: "thinker"},
	}
	for _, tc := range cases {
		cfg := config.Default()
		cfg.Models.Provider, cfg.Models.Reasoning, cfg.Models.Overrides = tc.provider, "thinker", tc.overrides
		cfg.Models.Champions = map[string]config.Adapter{"scope": a}
		cfg.Adapters.Server = tc.server
		got, err := NewRouter(cfg).Resolve(RoleReasoning, tc.stage)
		if tc.err != "" {
			if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		adapter := ""
		if got.Adapter != nil {
			adapter = got.Adapter.String()
		}
		if got.Model != tc.model || adapter != tc.adapter || got.RequestModel() != tc.served || got.Server != tc.wantServer {
			t.Errorf("%s: model %q adapter %q request model %q server %q, want %q %q %q %q", tc.name,
				got.Model, adapter, got.RequestModel(), got.Server, tc.model, tc.adapter, tc.served, tc.wantServer)
		}
	}
}
