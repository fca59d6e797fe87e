package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/config"
)

// modelCheck is one model cra would call and whether it answered.
type modelCheck struct {
	Uses     []string `json:"uses"` // roles and stage overrides served by this model
	Provider string   `json:"provider"`
	BaseURL  string   `json:"base_url"`
	Model    string   `json:"model"`
	OK       bool     `json:"ok"`
	Seconds  float64  `json:"seconds"`
	Error    string   `json:"error,omitempty"`
}

func (a *app) modelsCommand() *cli.Command {
	return &cli.Command{
		Name:  "models",
		Usage: "the models cra calls",
		Commands: []*cli.Command{{
			Name:  "check",
			Usage: "resolve every role and stage override and ask each model for a one-token answer",
			Description: "Resolves the coding and reasoning roles and every [models.overrides] stage, then sends\n" +
				"each distinct provider, URL and model one tiny completion. Prints what answered and\n" +
				"what to do about what did not (exit 1 if any failed). These pings are not logged.",
			Action: func(ctx context.Context, cmd *cli.Command) error {
				cfg, err := config.Load(a.home.ConfigPath())
				if err != nil {
					return err
				}
				checks, err := checkModels(ctx, cfg)
				if err != nil {
					return err
				}
				failed := 0
				for _, c := range checks {
					if !c.OK {
						failed++
					}
				}
				return a.batchDone(checks, func() error { return a.printModelChecks(checks) }, nil, failed, len(checks))
			},
		}},
	}
}

// checkModels pings each distinct model the configuration resolves to.
func checkModels(ctx context.Context, cfg config.Config) ([]*modelCheck, error) {
	router := llm.NewRouter(cfg.Models)
	type use struct {
		role  llm.Role
		stage string
		label string
	}
	uses := []use{{llm.RoleCoding, "", "coding"}, {llm.RoleReasoning, "", "reasoning"}}
	stages := make([]string, 0, len(cfg.Models.Overrides))
	for s := range cfg.Models.Overrides {
		stages = append(stages, s)
	}
	sort.Strings(stages)
	for _, s := range stages {
		role := llm.RoleReasoning
		if s == "implement" {
			role = llm.RoleCoding
		}
		uses = append(uses, use{role, s, "stage " + s})
	}
	var out []*modelCheck
	byKey := map[string]*modelCheck{}
	var configs []llm.ModelConfig
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
		c := &modelCheck{Uses: []string{u.label}, Provider: mc.Provider, BaseURL: mc.BaseURL, Model: mc.Model}
		byKey[key] = c
		out = append(out, c)
		configs = append(configs, mc)
	}
	for i, c := range out {
		start := time.Now()
		client, err := llm.New(configs[i])
		if err == nil {
			_, err = client.Complete(ctx, llm.Request{Prompt: "Answer with the word ok.", MaxTokens: 1})
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

func (a *app) printModelChecks(checks []*modelCheck) error {
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tPROVIDER\tURL\tUSED FOR\tSTATUS")
	for _, c := range checks {
		status := fmt.Sprintf("ok (%.1fs)", c.Seconds)
		if !c.OK {
			status = "failed: " + c.Error
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.Model, c.Provider, c.BaseURL, strings.Join(c.Uses, ", "), status)
	}
	return tw.Flush()
}
