package main

import (
	"context"
	"fmt"
	"os"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/shards"
)

// shardFlags are --shard and --shard-count of the commands that work on
// one shard of the clones (bootstrap, index, shards export).
func shardFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "shard", Usage: "work on shard `K/N` of the inputs (K from 0); default: $" + shards.EnvIndex +
			" of N from --shard-count"},
		&cli.IntFlag{Name: "shard-count", Usage: "`N` shards, with K from $" + shards.EnvIndex +
			" (a Kubernetes Indexed Job); default $" + shards.EnvCount},
	}
}

// shardOf reads --shard, --shard-count and the environment (getenv:
// os.Getenv outside tests); ok is false when nothing names a shard.
func shardOf(cmd *cli.Command, getenv func(string) string) (shards.Shard, bool, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	return shards.Resolve(shards.Spec{Flag: cmd.String("shard"), Count: int(cmd.Int("shard-count")),
		CountSet: cmd.IsSet("shard-count")}, getenv)
}

// optionalShard is the shard a batch command works on; nil for all.
func optionalShard(cmd *cli.Command) (*shards.Shard, error) {
	s, ok, err := shardOf(cmd, nil)
	if !ok {
		return nil, err
	}
	return &s, nil
}

// selectShard keeps the inputs of shard s (all when s is nil), logs how
// many it kept of how many, and returns the line the summary starts with
// ("" when not sharded).
func (a *app) selectShard(ctx context.Context, inputs []string, s *shards.Shard) ([]string, string) {
	if s == nil {
		return inputs, ""
	}
	sel := shards.Select(ctx, inputs, *s)
	a.log.Info("shard", "shard", s.String(), "kept", len(sel.Kept), "of", sel.Of)
	return sel.Kept, fmt.Sprintf("shard %s: %d of %d repositories\n", s, len(sel.Kept), sel.Of)
}
