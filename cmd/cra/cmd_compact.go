package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
)

func (a *app) compactCommand() *cli.Command {
	return &cli.Command{
		Name:  "compact",
		Usage: "rewrite the stores without the space deleted rows left behind",
		Description: "DuckDB reuses the blocks that deletes free, but does not give them back to the file\n" +
			"system: a raw.duckdb after many curate-data runs and `datasets prune` can hold much free\n" +
			"space. compact copies each store into a new file under its write lock, checks that every\n" +
			"table has the same number of rows, and renames the copy over the store. Run it after\n" +
			"pruning datasets, or when `cra status` shows a store much larger than its rows suggest.\n" +
			"It refuses (exit 2) while another process has the store open, and needs free disk space\n" +
			"for one copy of the store.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "store", Value: "all", Usage: "raw, curated or all"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() > 0 {
				return usage.Errorf("compact takes no arguments (see `cra compact --help`)")
			}
			var kinds []kb.Kind
			switch s := cmd.String("store"); s {
			case "all":
				kinds = kb.Kinds
			case string(kb.Raw), string(kb.Curated):
				kinds = []kb.Kind{kb.Kind(s)}
			default:
				return usage.Errorf("--store %q: use raw, curated or all", s)
			}
			return a.runCompact(ctx, kinds)
		},
	}
}

func (a *app) runCompact(ctx context.Context, kinds []kb.Kind) error {
	var out []*kb.CompactResult
	for _, k := range kinds {
		res, err := kb.Compact(ctx, a.home.Dir, k, "cra compact")
		if err != nil {
			return err
		}
		out = append(out, res)
	}
	if a.json {
		return a.writeJSON(out)
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STORE\tBEFORE\tAFTER\tTABLES")
	for _, r := range out {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", r.Store, humanBytes(r.BytesBefore), humanBytes(r.BytesAfter), len(r.Tables))
	}
	return tw.Flush()
}
