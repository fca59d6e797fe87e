package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
)

func (a *app) statusCommand() *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "show the home, store sizes, row counts per table and the last runs of each kind",
		Description: "A store another cra process is writing is waited for (--wait, default " + kb.ReadWait.String() + "; the batches\n" +
			"hold a store only while they write).",
		Flags: []cli.Flag{storeWaitFlag()},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() > 0 {
				return usage.Errorf("status takes no arguments")
			}
			opts, err := a.storeOptions(cmd, false)
			if err != nil {
				return err
			}
			return a.runStatus(ctx, opts)
		},
	}
}

func (a *app) runStatus(ctx context.Context, stores kb.Options) error {
	// An invalid config.toml is what the next command would trip on: say so now.
	if _, err := config.Load(a.home.ConfigPath()); err != nil {
		return err
	}
	st, err := kb.ReadStatus(ctx, a.home.Dir, stores)
	if err != nil {
		return err
	}
	if a.json {
		return a.writeJSON(struct {
			Home   string `json:"home"`
			Config string `json:"config"`
			*kb.Status
		}{a.home.Dir, a.home.ConfigPath(), st})
	}
	return a.printStatus(st)
}

func (a *app) printStatus(st *kb.Status) error {
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "home\t%s\n", a.home.Dir)
	fmt.Fprintf(tw, "config\t%s\n", a.home.ConfigPath())
	for _, s := range st.Stores {
		fmt.Fprintf(tw, "\n%s\t%s\t%s\tschema v%d\n", s.Kind, s.Path, humanBytes(s.Bytes), s.Version)
		for _, t := range s.Tables {
			fmt.Fprintf(tw, "  %s\t%d\n", t.Table, t.Rows)
		}
	}
	fmt.Fprintf(tw, "\nlast runs\tRUNS\tLAST\tSTATUS\tSECONDS\tWHAT\n")
	for _, r := range st.LastRuns {
		last, secs := "never", ""
		if r.Last != nil {
			last = r.Last.Local().Format(time.DateTime)
		}
		if r.Seconds != nil {
			secs = fmt.Sprintf("%.1f", *r.Seconds)
		}
		fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s\t%s\n", r.Kind, r.Count, last, r.Status, secs, r.Detail)
	}
	return tw.Flush()
}
