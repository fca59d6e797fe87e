package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/datasets"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
)

func (a *app) datasetsInspectCommand() *cli.Command {
	return &cli.Command{
		Name:      "inspect",
		Usage:     "read an export back and check it against its manifest (exit 1 on any mismatch)",
		ArgsUsage: "DIR",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() != 1 {
				return usage.Errorf("datasets inspect needs one export directory")
			}
			return a.runDatasetsInspect(ctx, cmd.Args().First())
		},
	}
}

func (a *app) runDatasetsInspect(ctx context.Context, dir string) error {
	rep, err := datasets.Inspect(ctx, dir)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		return usage.Errorf("%v", err)
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
}

func (a *app) printInspect(rep *datasets.InspectResult) error {
	fmt.Fprintf(a.stdout, "dataset %s@%d (%s, %s layout, %d files)\n\n", rep.Dataset, rep.Version, rep.Format, rep.Layout, rep.Files)
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STAGE\tKIND\tTRAIN\tVALIDATION")
	for _, st := range sortedStages(rep.Counts) {
		for _, k := range kb.ExampleKinds {
			if splits, ok := rep.Counts[st][k]; ok {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\n", st, k, splits[kb.SplitTrain], splits[kb.SplitValidation])
			}
		}
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
