package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
)

func (a *app) initCommand() *cli.Command {
	return &cli.Command{
		Name:  "init",
		Usage: "create the home: config.toml, curated.duckdb, raw.duckdb, sessions/, exports/",
		Description: "Safe to run again: stores get pending migrations, an existing config.toml is kept.\n" +
			"With model flags it writes a ready [models] section non-interactively (scripts, CI);\n" +
			"an existing config.toml is then rewritten with those values and kept as config.toml.bak.\n" +
			"API keys are never written: --api-key-env names the environment variable holding one.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "provider", Usage: "ollama, openai_compat or remote_api"},
			&cli.StringFlag{Name: "base-url", Usage: "the provider's URL, e.g. http://localhost:11434"},
			&cli.StringFlag{Name: "coding-model", Usage: "model tag for the coding role"},
			&cli.StringFlag{Name: "reasoning-model", Usage: "model tag for the reasoning role"},
			&cli.StringFlag{Name: "api-key-env", Usage: "NAME of the environment variable holding the API key"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() > 0 {
				return usage.Errorf("init takes no arguments (got %q); use --home to choose the directory", cmd.Args().First())
			}
			return a.runInit(ctx, commandName(cmd), config.ModelChoice{
				Provider:  cmd.String("provider"),
				BaseURL:   cmd.String("base-url"),
				Coding:    cmd.String("coding-model"),
				Reasoning: cmd.String("reasoning-model"),
				APIKeyEnv: cmd.String("api-key-env"),
			})
		},
	}
}

func (a *app) runInit(ctx context.Context, command string, choice config.ModelChoice) error {
	h := a.home
	action, err := h.Init(choice)
	if err != nil {
		return err
	}
	if err := kb.Init(ctx, h.Dir, command); err != nil {
		return err
	}
	if a.json {
		return a.writeJSON(map[string]any{
			"home": h.Dir, "config": h.ConfigPath(), "config_action": action,
			"curated": kb.Curated.Path(h.Dir), "raw": kb.Raw.Path(h.Dir),
			"schema_versions": map[string]int{"curated": kb.LatestVersion(kb.Curated), "raw": kb.LatestVersion(kb.Raw)},
		})
	}
	fmt.Fprintf(a.stdout, "home     %s\nconfig   %s (%s)\ncurated  %s (schema v%d)\nraw      %s (schema v%d)\n",
		h.Dir, h.ConfigPath(), action, kb.Curated.Path(h.Dir), kb.LatestVersion(kb.Curated), kb.Raw.Path(h.Dir), kb.LatestVersion(kb.Raw))
	fmt.Fprintf(a.stdout, "\nnext:\n"+
		"  cra models check                  # are the models in config.toml reachable?\n"+
		"  cra bootstrap ~/clones/*          # mine each clone's history (indexes it first)\n"+
		"  cra curate-data --name synthetic  # build a dataset from what was mined\n"+
		"  cra datasets export synthetic     # Parquet shards for TRL, Axolotl or your LoRA script\n")
	return nil
}
