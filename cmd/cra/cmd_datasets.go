package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"text/tabwriter"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/datasets"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/kb"
)

func (a *app) datasetsCommand() *cli.Command {
	return &cli.Command{
		Name:  "datasets",
		Usage: "list, show, export and inspect training datasets",
		Description: "Datasets are built by `cra curate-data` into raw.training_examples. Export writes one\n" +
			"directory that Hugging Face datasets, TRL or a custom LoRA script read as it is:\n" +
			"<stage>/<split>-NNNNN-of-NNNNN.parquet (zstd; messages as list<struct<role, content>>)\n" +
			"or .jsonl, a manifest.json (counts, sha256 per file, selection criteria) and a README.md\n" +
			"dataset card declaring one config per stage.",
		Commands: []*cli.Command{
			{
				Name:  "list",
				Usage: "the datasets and their examples per stage and split",
				Action: func(ctx context.Context, cmd *cli.Command) error {
					all, err := a.datasetInfo(ctx, "")
					if err != nil {
						return err
					}
					if a.json {
						return a.writeJSON(all)
					}
					tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
					fmt.Fprintln(tw, "NAME\tSTAGE\tTRAIN\tVALIDATION\tCREATED")
					for _, d := range all {
						for _, st := range sortedStages(d.Examples) {
							fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", d.Name, st, d.Examples[st][kb.SplitTrain], d.Examples[st][kb.SplitValidation], d.Created)
						}
					}
					return tw.Flush()
				},
			},
			{
				Name:      "show",
				Usage:     "one dataset: examples per stage and split, drops per reason, selection criteria",
				ArgsUsage: "NAME",
				Action: func(ctx context.Context, cmd *cli.Command) error {
					if cmd.Args().Len() != 1 {
						return usagef("datasets show needs one dataset name (see `cra datasets list`)")
					}
					all, err := a.datasetInfo(ctx, cmd.Args().First())
					if err != nil {
						return err
					}
					d := all[0]
					if a.json {
						return a.writeJSON(d)
					}
					fmt.Fprintf(a.stdout, "dataset %s (created %s)\n\n", d.Name, d.Created)
					tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
					fmt.Fprintln(tw, "STAGE\tTRAIN\tVALIDATION")
					for _, st := range sortedStages(d.Examples) {
						fmt.Fprintf(tw, "%s\t%d\t%d\n", st, d.Examples[st][kb.SplitTrain], d.Examples[st][kb.SplitValidation])
					}
					if err := tw.Flush(); err != nil {
						return err
					}
					// The same counts are stored on every stage: show the first stage's.
					if stages := sortedStages(d.Dropped); len(stages) > 0 && len(d.Dropped[stages[0]]) > 0 {
						dropped := d.Dropped[stages[0]]
						fmt.Fprintln(a.stdout, "\ndropped:")
						for _, r := range sortedStages(dropped) {
							fmt.Fprintf(a.stdout, "  %s %d\n", r, dropped[r])
						}
					}
					fmt.Fprintf(a.stdout, "\ncriteria: %s\n", d.Criteria)
					return nil
				},
			},
			{
				Name:      "export",
				Usage:     "write a dataset as Parquet or JSON Lines shards with a manifest and a dataset card",
				ArgsUsage: "NAME",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "format", Value: datasets.FormatParquet, Usage: "parquet or jsonl"},
					&cli.StringFlag{Name: "out", Usage: "a new or empty directory (default: exports/NAME-FORMAT in the home)"},
				},
				Action: func(ctx context.Context, cmd *cli.Command) error {
					if cmd.Args().Len() != 1 {
						return usagef("datasets export needs one dataset name (see `cra datasets list`)")
					}
					name, format := cmd.Args().First(), cmd.String("format")
					if format != datasets.FormatParquet && format != datasets.FormatJSONL {
						return usagef("--format %q: use parquet or jsonl", format)
					}
					cfg, err := config.Load(a.home.ConfigPath())
					if err != nil {
						return err
					}
					out := cmd.String("out")
					if out == "" {
						out = filepath.Join(a.home.Dir, "exports", name+"-"+format)
					}
					raw, err := kb.Open(ctx, a.home.Dir, kb.Raw, kb.Options{})
					if err != nil {
						return err
					}
					defer raw.Close()
					m, err := datasets.Export(ctx, raw.DB, name, datasets.ExportOptions{Format: format, Out: out, ShardBytes: int64(cfg.Curate.ShardMaxMB) << 20})
					if errors.Is(err, kb.ErrNotFound) {
						return usagef("%v", err)
					}
					if err != nil {
						return err
					}
					if a.json {
						return a.writeJSON(m)
					}
					rows := 0
					for _, f := range m.Files {
						rows += f.Rows
					}
					fmt.Fprintf(a.stdout, "exported %s: %d rows in %d files to %s\n", name, rows, len(m.Files), out)
					return nil
				},
			},
			{
				Name:      "inspect",
				Usage:     "read an export back and check it against its manifest (exit 1 on any mismatch)",
				ArgsUsage: "DIR",
				Action: func(ctx context.Context, cmd *cli.Command) error {
					if cmd.Args().Len() != 1 {
						return usagef("datasets inspect needs one export directory")
					}
					rep, err := datasets.Inspect(cmd.Args().First())
					if err != nil {
						return usagef("%v", err)
					}
					if a.json {
						err = a.writeJSON(rep)
					} else {
						err = a.printInspect(rep)
					}
					if err != nil {
						return err
					}
					if len(rep.Problems) > 0 {
						return &partialError{failed: len(rep.Problems), total: rep.Files}
					}
					return nil
				},
			},
		},
	}
}

func (a *app) datasetInfo(ctx context.Context, name string) ([]kb.DatasetInfo, error) {
	raw, err := kb.Open(ctx, a.home.Dir, kb.Raw, kb.Options{})
	if err != nil {
		return nil, err
	}
	defer raw.Close()
	all, err := kb.Datasets(ctx, raw.DB, name)
	if errors.Is(err, kb.ErrNotFound) {
		return nil, usagef("%v", err)
	}
	if all == nil {
		all = []kb.DatasetInfo{}
	}
	return all, err
}

func (a *app) printInspect(rep *datasets.Report) error {
	fmt.Fprintf(a.stdout, "dataset %s (%s, %d files)\n\n", rep.Dataset, rep.Format, rep.Files)
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STAGE\tTRAIN\tVALIDATION")
	for _, st := range sortedStages(rep.Counts) {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", st, rep.Counts[st][kb.SplitTrain], rep.Counts[st][kb.SplitValidation])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(rep.Problems) == 0 {
		fmt.Fprintln(a.stdout, "\nevery file matches the manifest")
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(a.stdout, "problem: %s\n", p)
	}
	return nil
}

func sortedStages[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
