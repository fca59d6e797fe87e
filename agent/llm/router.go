package llm

import (
	"fmt"
	"time"

	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/kb/schema"
)

// Role is what a call is for; each role has its own model and temperature.
type Role string

const (
	RoleCoding    Role = "coding"    // code generation (implement)
	RoleReasoning Role = "reasoning" // task analysis, scope, precision, plan, enrichment, train-plan
)

// StageRole is the role whose model serves a pipeline stage when no
// override names one: implement is code generation, every other stage
// (task analysis, scope, precision, plan, enrichment, ...) reasoning.
func StageRole(stage string) Role {
	if stage == schema.StageImplement {
		return RoleCoding
	}
	return RoleReasoning
}

// Router resolves which model serves a role and stage: a stage's
// [models.overrides] entry, else its champion adapter (on the role's
// model), else the role's model. It is built once per command from the
// loaded config, its champions read from the adapter registry.
type Router struct {
	models config.Models
	server string // the server that loads the adapters (config.Adapters.ServerFor)
}

// NewRouter makes a Router over the [models] section, its champions, and
// the [adapters] server that serves them.
func NewRouter(cfg config.Config) *Router {
	return &Router{models: cfg.Models, server: cfg.Adapters.ServerFor(cfg.Models.Provider)}
}

// Resolve picks the model: [models.overrides] for stage, else
// [models].<role> with the stage's champion adapter when it has one, else
// an error telling the user to run `cra init`.
func (r *Router) Resolve(role Role, stage string) (ModelConfig, error) {
	m := r.models
	var model string
	var temp float64
	switch role {
	case RoleCoding:
		model, temp = m.Coding, m.Temperature.Coding
	case RoleReasoning:
		model, temp = m.Reasoning, m.Temperature.Reasoning
	default:
		return ModelConfig{}, fmt.Errorf("%w: unknown model role %q (coding or reasoning)", ErrInvalidConfig, role)
	}
	var adapter *config.Adapter
	if override, ok := m.Overrides[stage]; ok && stage != "" && override != "" {
		model = override
	} else if champion, ok := m.Champion(stage); ok {
		if r.server == "" {
			return ModelConfig{}, fmt.Errorf("%w: stage %s is routed to adapter %s, but the %s provider loads no adapters: "+
				"set models.provider to ollama or openai_compat (the server that loads it), or roll the stage back with `cra adapters`",
				ErrInvalidConfig, stage, champion, m.Provider)
		}
		adapter = &champion
	}
	if model == "" {
		return ModelConfig{}, fmt.Errorf("%w: no %s model configured: run `cra init --%s-model M` or set models.%s in config.toml",
			ErrInvalidConfig, role, role, role)
	}
	return ModelConfig{
		Provider:       m.Provider,
		BaseURL:        m.BaseURL,
		Model:          model,
		Adapter:        adapter,
		Server:         r.server,
		Temperature:    temp,
		MaxTokens:      m.MaxTokens,
		ContextWindow:  m.ContextWindow,
		APIKeyEnv:      m.APIKeyEnv,
		Timeout:        time.Duration(m.TimeoutSeconds) * time.Second,
		MaxRetries:     m.MaxRetries,
		MaxConcurrency: m.MaxConcurrency,
		Think:          m.Think,
	}, nil
}

// Teacher resolves the [teacher] section; an empty model means distillation
// is not configured. The teacher's window is the provider's business: no
// context-window gate is set.
func Teacher(t config.Teacher) (ModelConfig, error) {
	if t.Model == "" {
		return ModelConfig{}, fmt.Errorf("%w: no teacher model: set teacher.model and teacher.base_url in config.toml (or pass --teacher)", ErrInvalidConfig)
	}
	return ModelConfig{
		Provider:       t.Provider,
		BaseURL:        t.BaseURL,
		Model:          t.Model,
		MaxTokens:      t.MaxTokens,
		APIKeyEnv:      t.APIKeyEnv,
		Timeout:        time.Duration(t.TimeoutSeconds) * time.Second,
		MaxRetries:     t.MaxRetries,
		MaxConcurrency: t.MaxConcurrency,
	}, nil
}
