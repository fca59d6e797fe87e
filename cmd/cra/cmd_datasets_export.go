package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/datasets"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/kb"
)

// exportOptions is `cra datasets export` parsed.
type exportOptions struct {
	ref    kb.DatasetRef
	format string
	out    string // "" for the default under the home's exports/
}

func (a *app) datasetsExportCommand() *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write a dataset version as Parquet or JSON Lines shards with a manifest and a dataset card",
		ArgsUsage: "NAME[@VERSION]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: datasets.FormatParquet, Usage: "parquet or jsonl"},
			&cli.StringFlag{Name: "out", Usage: "a new or empty directory (default: exports/NAME-vVERSION-FORMAT in the home)"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			opts, err := parseExport(cmd)
			if err != nil {
				return err
			}
			return a.runDatasetsExport(ctx, opts)
		},
	}
}

func parseExport(cmd *cli.Command) (exportOptions, error) {
	ref, err := datasetRef(cmd)
	if err != nil {
		return exportOptions{}, err
	}
	opts := exportOptions{ref: ref, format: cmd.String("format"), out: cmd.String("out")}
	if opts.format != datasets.FormatParquet && opts.format != datasets.FormatJSONL {
		return opts, usagef("--format %q: use parquet or jsonl", opts.format)
	}
	return opts, nil
}

func (a *app) runDatasetsExport(ctx context.Context, opts exportOptions) error {
	cfg, err := config.Load(a.home.ConfigPath())
	if err != nil {
		return err
	}
	var m *datasets.Manifest
	err = a.withRaw(ctx, func(q kb.Querier) error {
		if opts.out == "" {
			d, err := kb.ResolveDataset(ctx, q, opts.ref)
			if err != nil {
				return err
			}
			opts.out = a.home.ExportDir(d.Name, d.Version, opts.format)
			opts.ref.Version = d.Version
		}
		m, err = datasets.Export(ctx, q, opts.ref, datasets.ExportOptions{Format: opts.format, Out: opts.out,
			ShardBytes: int64(cfg.Curate.ShardMaxMB) << 20})
		return err
	})
	if errors.As(err, new(*datasets.NotEmptyError)) {
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
	fmt.Fprintf(a.stdout, "exported %s@%d: %d rows in %d files to %s\n", m.Dataset, m.Version, rows, len(m.Files), opts.out)
	return nil
}
