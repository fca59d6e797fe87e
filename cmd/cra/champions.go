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
// sends a stage with a champion to it. Every command that calls the
// agent's models loads its configuration here; the others use
// config.Load, and never wait for the raw store to read champions they
// would not use (a nightly bootstrap must not wait on another's writes).
func (a *app) loadConfig(ctx context.Context) (config.Config, error) {
	cfg, err := config.Load(a.home.ConfigPath())
	if err != nil {
		return cfg, err
	}
	cfg.Models.Champions, err = a.champions(ctx)
	return cfg, err
}

// champions reads the adapters the registry routes, stage → adapter. A
// home without a raw store has none (the command says what is missing
// when it opens its stores). Behind a writer (a bootstrap's burst) it
// waits its turn, saying once on stderr for whom: a plan or models check
// that seems stuck before its first model call says why.
func (a *app) champions(ctx context.Context) (map[string]config.Adapter, error) {
	raw, err := kb.Open(ctx, a.home.Dir, kb.Raw, kb.Options{Command: "cra (reading the adapter champions)", Wait: kb.ReadWait,
		Waiting: a.sayWaiting(kb.ReadWait)})
	if errors.As(err, new(*kb.NotInitializedError)) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer raw.Close()
	return adapters.Champions(ctx, raw.DB)
}
