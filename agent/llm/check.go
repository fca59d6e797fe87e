package llm

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cra-dev/cra/internal/config"
)

// PingPrompt is what a check asks each model: any answer of one token
// proves it answers. (Test fakes that place requests by their prompt
// recognise it.)
const PingPrompt = "Answer with the word ok."

// DefaultPingTimeout bounds one ping: long enough for a local server to
// load a model, short enough that a server that is down is reported
// before the user wonders.
const DefaultPingTimeout = 30 * time.Second

// ModelCheck is one model cra would call and whether it answered.
type ModelCheck struct {
	Uses     []string `json:"uses"` // roles, stage overrides and champions served by this model
	Provider string   `json:"provider"`
	BaseURL  string   `json:"base_url"`
	Model    string   `json:"model"`
	// Adapter is the champion adapter (NAME@VERSION) asked for on Model,
	// Served its name on a server that asks for it by name (vLLM,
	// Ollama); both empty for the base model.
	Adapter string  `json:"adapter,omitempty"`
	Served  string  `json:"served,omitempty"`
	OK      bool    `json:"ok"`
	Seconds float64 `json:"seconds"`
	Error   string  `json:"error,omitempty"`
}

// PingOptions say how the models are pinged.
type PingOptions struct {
	// Timeout bounds each ping (one attempt, no retry); 0 is
	// DefaultPingTimeout.
	Timeout time.Duration
	// NewClient builds the clients (tests inject theirs); nil is New.
	NewClient func(ModelConfig) (Client, error)
}

// CheckModels resolves the coding and reasoning roles, every stage
// override and every champion of cfg's models, and asks each distinct
// provider, URL, model and adapter for a one-token answer through the
// route a stage's calls take (not logged: a ping is no training data). A
// model that does not answer is a check with OK false; the error is for
// what stops the checks (an invalid configuration, a cancelled ctx).
func CheckModels(ctx context.Context, cfg config.Config, opts PingOptions) ([]*ModelCheck, error) {
	uses := []use{{RoleCoding, "", "coding"}, {RoleReasoning, "", "reasoning"}}
	seen := map[string]bool{}
	var stages []string
	for s := range cfg.Models.Overrides {
		stages, seen[s] = append(stages, s), true
	}
	for s := range cfg.Models.Champions {
		if !seen[s] { // an override wins: the champion is not called
			stages = append(stages, s)
		}
	}
	sort.Strings(stages)
	for _, s := range stages {
		uses = append(uses, use{StageRole(s), s, "stage " + s})
	}
	return check(ctx, NewRouter(cfg), uses, opts)
}

// CheckStages is the preflight of a command that calls the models of
// stages: it pings each distinct provider, URL, model and adapter serving
// them once, before anything runs, so a server that is down (or lacks a
// champion adapter) stops the command at once rather than failing every
// task after its retries. The error is an *UnansweredError naming what
// did not answer; ctx's error when it ended; ErrInvalidConfig's when a
// stage has no model.
func CheckStages(ctx context.Context, cfg config.Config, stages []string, opts PingOptions) error {
	uses := make([]use, 0, len(stages))
	for _, s := range stages {
		uses = append(uses, use{StageRole(s), s, s})
	}
	checks, err := check(ctx, NewRouter(cfg), uses, opts)
	if err != nil {
		return err
	}
	var failed []*ModelCheck
	for _, c := range checks {
		if !c.OK {
			failed = append(failed, c)
		}
	}
	if len(failed) > 0 {
		return &UnansweredError{Checks: failed}
	}
	return nil
}

// UnansweredError is a preflight's finding: models a command needs did
// not answer, so nothing was run.
type UnansweredError struct {
	Checks []*ModelCheck // the failed checks
}

func (e *UnansweredError) Error() string {
	var b strings.Builder
	for i, c := range e.Checks {
		if i > 0 {
			b.WriteString("; ")
		}
		if c.Adapter != "" {
			served := ""
			if c.Served != "" {
				served = "served as " + c.Served + ", "
			}
			fmt.Fprintf(&b, "adapter %s (%s, %son model %s) at %s (%s) did not answer: %s",
				c.Adapter, strings.Join(c.Uses, ", "), served, c.Model, c.BaseURL, c.Provider, c.Error)
			continue
		}
		fmt.Fprintf(&b, "model %s at %s (%s) did not answer: %s", c.Model, c.BaseURL, c.Provider, c.Error)
	}
	b.WriteString(": start the server or fix [models] in config.toml; `cra models check` tests them all")
	return b.String()
}

// use is a role or stage a model is resolved for, and how a check names it.
type use struct {
	role  Role
	stage string
	label string
}

// check resolves every use and pings each distinct provider, URL, model
// and adapter once, in the order first used.
func check(ctx context.Context, router *Router, uses []use, opts PingOptions) ([]*ModelCheck, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultPingTimeout
	}
	if opts.NewClient == nil {
		opts.NewClient = func(cfg ModelConfig) (Client, error) { return New(cfg) }
	}
	var out []*ModelCheck
	byKey := map[string]*ModelCheck{}
	var configs []ModelConfig
	for _, u := range uses {
		mc, err := router.Resolve(u.role, u.stage)
		if err != nil {
			return nil, err
		}
		mc.MaxRetries, mc.Timeout = 0, opts.Timeout
		var adapter, served string
		if mc.Adapter != nil {
			adapter = mc.Adapter.String()
			if mc.RequestModel() != mc.Model { // llama.cpp's server asks by id, not by name
				served = mc.RequestModel()
			}
		}
		key := mc.Provider + "\x00" + mc.BaseURL + "\x00" + mc.Model + "\x00" + adapter
		if c := byKey[key]; c != nil {
			c.Uses = append(c.Uses, u.label)
			continue
		}
		c := &ModelCheck{Uses: []string{u.label}, Provider: mc.Provider, BaseURL: mc.BaseURL, Model: mc.Model,
			Adapter: adapter, Served: served}
		byKey[key] = c
		out = append(out, c)
		configs = append(configs, mc)
	}
	for i, c := range out {
		start := time.Now()
		err := ping(ctx, opts.NewClient, configs[i])
		c.Seconds = time.Since(start).Seconds()
		if err != nil {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			c.Error = failureOf(err)
		} else {
			c.OK = true
		}
	}
	return out, nil
}

// ping asks cfg's model for one token, under the ping's timeout (a
// client that ignores cfg's timeout is still bounded).
func ping(ctx context.Context, newClient func(ModelConfig) (Client, error), cfg ModelConfig) error {
	client, err := newClient(cfg)
	if err != nil {
		return err
	}
	defer client.Close()
	pctx, cancel := context.WithTimeout(ctx, cfg.Timeout+time.Second)
	defer cancel()
	_, err = client.Complete(pctx, Request{Prompt: PingPrompt, MaxTokens: 1})
	return err
}

// failureOf is what went wrong, without the provider and model a check
// names already.
func failureOf(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Err != nil {
		return e.Err.Error()
	}
	return err.Error()
}
