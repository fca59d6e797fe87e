package main

import (
	"context"
	"errors"

	"github.com/cra-dev/cra/agent/adapters"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/kb"
)

// loadConfig loads config.toml and the champions the adapter registry
// routes (config.Models.Champions), so every router the command builds
// sends a stage with a champion to it. Every command that calls models
// loads its configuration here. A home without a raw store has no
// champions (the command says what is missing when it opens its stores).
func (a *app) loadConfig(ctx context.Context) (config.Config, error) {
	cfg, err := config.Load(a.home.ConfigPath())
	if err != nil {
		return cfg, err
	}
	raw, err := kb.Open(ctx, a.home.Dir, kb.Raw, kb.Options{Command: "cra (reading the adapter champions)", Wait: kb.ReadWait})
	if errors.As(err, new(*kb.NotInitializedError)) {
		return cfg, nil
	}
	if err != nil {
		return cfg, err
	}
	defer raw.Close()
	if cfg.Models.Champions, err = adapters.Champions(ctx, raw.DB); err != nil {
		return cfg, err
	}
	return cfg, nil
}
