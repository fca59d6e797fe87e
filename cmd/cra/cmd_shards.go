package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/shards"
)

// shardsExportOptions is `cra shards export` parsed.
type shardsExportOptions struct {
	out   string
	shard shards.Shard
}

func (a *app) shardsCommand() *cli.Command {
	return &cli.Command{
		Name:  "shards",
		Usage: "export a shard's mined tables as Parquet, or import the union of the shards into this home",
		Description: "The nightly batch split across machines (a Kubernetes Indexed Job): each pod runs\n" +
			"`cra bootstrap --shard K/N` on its own home, then `cra shards export --out DIR` to a shared\n" +
			"mounted folder; one home runs `cra shards import DIR`, or queries the union in place with\n" +
			"`cra sql --shards DIR`. See the README's \"Sharding the nightly batch\".",
		Commands: []*cli.Command{a.shardsExportCommand(), a.shardsImportCommand()},
	}
}

func (a *app) shardsExportCommand() *cli.Command {
	return &cli.Command{
		Name:  "export",
		Usage: "write this home's bootstrap tables as shard K of N under DIR (Hive-partitioned Parquet)",
		Description: "Writes raw.bootstrap_runs, bootstrap_repos, bootstrap_commits, bootstrap_merges,\n" +
			"synthetic_tasks and synthetic_targets as DIR/<table>/shard=K/<generation>.parquet (zstd),\n" +
			"read in one transaction. The files are written under DIR/_tmp, renamed into place, and\n" +
			"committed by renaming the manifest DIR/_shards/shard=K.json: cra's readers see a shard\n" +
			"whole or not at all. Exporting the shard again replaces it and removes the previous\n" +
			"generation, and whatever a killed export left. The shard is --shard K/N, else\n" +
			"$" + shards.EnvIndex + " with --shard-count or $" + shards.EnvCount + ".",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "the shared `DIR` (a mounted volume) to write the shard under"},
		}, shardFlags()...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			opts, err := parseShardsExport(cmd, nil)
			if err != nil {
				return err
			}
			return a.runShardsExport(ctx, opts)
		},
	}
}

func parseShardsExport(cmd *cli.Command, getenv func(string) string) (shardsExportOptions, error) {
	if cmd.Args().Len() > 0 {
		return shardsExportOptions{}, usage.Errorf("shards export takes no arguments: give the folder with --out DIR")
	}
	out := cmd.String("out")
	if out == "" {
		return shardsExportOptions{}, usage.Errorf("shards export needs --out DIR, the shared folder to write the shard under")
	}
	s, ok, err := shardOf(cmd, getenv)
	if err != nil {
		return shardsExportOptions{}, err
	}
	if !ok {
		return shardsExportOptions{}, usage.Errorf("shards export needs the shard: give --shard K/N, or set %s and %s (a Kubernetes Indexed Job)",
			shards.EnvIndex, shards.EnvCount)
	}
	return shardsExportOptions{out: out, shard: s}, nil
}

func (a *app) runShardsExport(ctx context.Context, opts shardsExportOptions) error {
	sum, err := shards.Export(ctx, a.home.Dir, opts.out, opts.shard, shards.ExportOptions{Log: a.log})
	if err != nil {
		return err
	}
	if a.json {
		return a.writeJSON(sum)
	}
	fmt.Fprintf(a.stdout, "shard %s exported to %s (generation %s, %s, %.1fs)\n", sum.Shard, sum.Dir, sum.Generation, humanBytes(sum.Bytes), sum.Seconds)
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TABLE\tROWS")
	for _, t := range shards.TableNames() {
		fmt.Fprintf(tw, "%s\t%d\n", t, sum.Rows[t])
	}
	return tw.Flush()
}

func (a *app) shardsImportCommand() *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "load every committed shard under DIR into this home's raw store",
		ArgsUsage: "DIR",
		Description: "Reads only the files the manifests DIR/_shards/shard=K.json name. Each shard's runs become\n" +
			"runs of this home (raw.shard_runs maps them, so a run is imported once); rows are added in\n" +
			"bounded transactions, anti-joined on their deterministic ids, run ids remapped; a\n" +
			"repository's watermark is replaced only by a newer one. Importing again adds only what is\n" +
			"new; a killed import is completed by running it again. Then curate-data, eval, train-plan\n" +
			"and sql work as after a local bootstrap (eval needs the clones at the same paths here).",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() != 1 {
				return usage.Errorf("shards import needs one folder: cra shards import DIR")
			}
			return a.runShardsImport(ctx, cmd.Args().First())
		},
	}
}

func (a *app) runShardsImport(ctx context.Context, dir string) error {
	sum, err := shards.Import(ctx, a.home.Dir, dir, shards.ImportOptions{Log: a.log})
	if err != nil {
		return err
	}
	if a.json {
		return a.writeJSON(sum)
	}
	fmt.Fprintf(a.stdout, "imported %d shards of %s (%d rows read, %.1fs)\n", len(sum.Shards), sum.Dir, sum.Read, sum.Seconds)
	if len(sum.Counts) > 1 {
		fmt.Fprintf(a.stdout, "note: the shards were exported with different counts %v: a change of N is under way; "+
			"a repository in two shards is imported once\n", sum.Counts)
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TABLE\tADDED")
	for _, t := range shards.TableNames()[1:] {
		fmt.Fprintf(tw, "%s\t%d\n", t, sum.Added[t])
	}
	runs := 0
	for _, s := range sum.Shards {
		runs += s.NewRuns
	}
	fmt.Fprintf(tw, "%s (new runs)\t%d\n", shards.TableNames()[0], runs)
	return tw.Flush()
}
