package llm

import (
	"context"
	"sort"
	"time"

	"github.com/cra-dev/cra/internal/config"
)

// ModelCheck is one model cra would call and whether it answered.
type ModelCheck struct {
	Uses     []string `json:"uses"` // roles and stage overrides served by this model
	Provider string   `json:"provider"`
	BaseURL  string   `json:"base_url"`
	Model    string   `json:"model"`
	OK       bool     `json:"ok"`
	Seconds  float64  `json:"seconds"`
	Error    string   `json:"error,omitempty"`
}

// CheckModels resolves the coding and reasoning roles and every stage
// override of models, and asks each distinct provider, URL and model for
// a one-token answer (not logged: a ping is no training data). A model
// that does not answer is a check with OK false; the error is for what
// stops the checks (an invalid configuration, a cancelled ctx).
func CheckModels(ctx context.Context, models config.Models) ([]*ModelCheck, error) {
	router := NewRouter(models)
	type use struct {
		role  Role
		stage string
		label string
	}
	uses := []use{{RoleCoding, "", "coding"}, {RoleReasoning, "", "reasoning"}}
	stages := make([]string, 0, len(models.Overrides))
	for s := range models.Overrides {
		stages = append(stages, s)
	}
	sort.Strings(stages)
	for _, s := range stages {
		uses = append(uses, use{StageRole(s), s, "stage " + s})
	}
	var out []*ModelCheck
	byKey := map[string]*ModelCheck{}
	var configs []ModelConfig
	for _, u := range uses {
		mc, err := router.Resolve(u.role, u.stage)
		if err != nil {
			return nil, err
		}
		mc.MaxRetries, mc.Timeout = 0, 30*time.Second
		key := mc.Provider + "\x00" + mc.BaseURL + "\x00" + mc.Model
		if c := byKey[key]; c != nil {
			c.Uses = append(c.Uses, u.label)
			continue
		}
		c := &ModelCheck{Uses: []string{u.label}, Provider: mc.Provider, BaseURL: mc.BaseURL, Model: mc.Model}
		byKey[key] = c
		out = append(out, c)
		configs = append(configs, mc)
	}
	for i, c := range out {
		start := time.Now()
		client, err := New(configs[i])
		if err == nil {
			_, err = client.Complete(ctx, Request{Prompt: "Answer with the word ok.", MaxTokens: 1})
			client.Close()
		}
		c.Seconds = time.Since(start).Seconds()
		if err != nil {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			c.Error = err.Error()
		} else {
			c.OK = true
		}
	}
	return out, nil
}
