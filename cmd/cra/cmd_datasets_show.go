package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/datasets"
	"github.com/cra-dev/cra/kb"
)

// showOptions is `cra datasets show` parsed.
type showOptions struct {
	ref    kb.DatasetRef
	report string // "": no report
}

func (a *app) datasetsShowCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "one dataset version: examples per stage and split, drops per reason, selection criteria",
		ArgsUsage: "NAME[@VERSION]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "report", Usage: "also write the version's report to `DIR` (created if missing): report.md and a self-contained " +
				"report.html with charts — examples per stage, kind, source, split and repository, drops, pair signals, KTO balance, " +
				"token lengths against the context window, what changed since the previous version"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			ref, err := datasetRef(cmd)
			if err != nil {
				return err
			}
			return a.runDatasetsShow(ctx, showOptions{ref: ref, report: cmd.String("report")})
		},
	}
}

func (a *app) runDatasetsShow(ctx context.Context, opts showOptions) error {
	var d kb.DatasetInfo
	var report []string
	err := a.withRaw(ctx, func(q kb.Querier) (err error) {
		if d, err = kb.ResolveDataset(ctx, q, opts.ref); err != nil || opts.report == "" {
			return err
		}
		report, err = datasets.WriteReport(ctx, q, kb.DatasetRef{Name: d.Name, Version: d.Version}, opts.report)
		return err
	})
	if err != nil {
		return err
	}
	if a.json {
		return a.writeJSON(struct {
			kb.DatasetInfo
			Report []string `json:"report,omitempty"`
		}{d, report})
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
	if len(report) > 0 {
		fmt.Fprintln(a.stdout, "\nreport:")
		for _, p := range report {
			fmt.Fprintf(a.stdout, "  %s\n", p)
		}
	}
	return nil
}
