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
