package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/kb"
)

func (a *app) datasetsShowCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "one dataset version: examples per stage and split, drops per reason, selection criteria",
		ArgsUsage: "NAME[@VERSION]",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			ref, err := datasetRef(cmd)
			if err != nil {
				return err
			}
			return a.runDatasetsShow(ctx, ref)
		},
	}
}

func (a *app) runDatasetsShow(ctx context.Context, ref kb.DatasetRef) error {
	var d kb.DatasetInfo
	err := a.withRaw(ctx, func(q kb.Querier) (err error) {
		d, err = kb.ResolveDataset(ctx, q, ref)
		return err
	})
	if err != nil {
		return err
	}
	if a.json {
		return a.writeJSON(d)
	}
	fmt.Fprintf(a.stdout, "dataset %s@%d (created %s by cra %s)\n\n", d.Name, d.Version, d.Created, d.CraVersion)
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STAGE\tTRAIN\tVALIDATION")
	for _, st := range sortedStages(d.Examples) {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", st, d.Examples[st][kb.SplitTrain], d.Examples[st][kb.SplitValidation])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(d.Dropped) > 0 {
		fmt.Fprintln(a.stdout, "\ndropped:")
		for _, r := range sortedStages(d.Dropped) {
			fmt.Fprintf(a.stdout, "  %s %d\n", r, d.Dropped[r])
		}
	}
	fmt.Fprintf(a.stdout, "\ncriteria: %s\n", d.Criteria)
	return nil
}
