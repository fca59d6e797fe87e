package main

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/ingest"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/progress"
)

func (a *app) enrichCommand() *cli.Command {
	return &cli.Command{
		Name:      "enrich",
		Usage:     "describe each file of an indexed repository with the reasoning model (purpose, module, domain, concepts, public API)",
		ArgsUsage: "<repo>",
		Description: "Asks the reasoning model (or [models.overrides] enrichment) for a JSON description of\n" +
			"every indexed file whose current content has no valid description by that model yet, so\n" +
			"a re-run only asks about new or changed files. Every output, valid or not, is kept in\n" +
			"raw.enrichment_outputs with its prompt, and every call in raw.retrieval_llm_calls.\n" +
			"Malformed JSON is asked for once more, then recorded as failed (exit 1; the rest goes on).\n" +
			"--promote copies the newest valid description per file into curated file_metadata,\n" +
			"which scope's metadata tier reads.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "promote", Usage: "copy the newest valid output per file into curated file_metadata"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Usage: "files in flight at once (default: all cores; the provider's max_concurrency bounds calls)"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() != 1 {
				return usagef("enrich needs one repository path (see `cra enrich --help`)")
			}
			if cmd.Int("jobs") < 0 {
				return usagef("--jobs must be positive")
			}
			cfg, err := config.Load(a.home.ConfigPath())
			if err != nil {
				return err
			}
			model, err := llm.NewRouter(cfg.Models).Resolve(llm.RoleReasoning, "enrichment")
			if err != nil {
				return usagef("%v", err)
			}
			p := progress.Start(progress.Options{Out: a.stderr, TTY: isTerminal(a.stderr), Log: a.log})
			sum, err := ingest.Enrich(ctx, a.home.Dir, cmd.Args().First(), ingest.EnrichOptions{
				Model: model, Jobs: int(cmd.Int("jobs")), Promote: cmd.Bool("promote"), Progress: p, Log: a.log,
			})
			p.Stop()
			if errors.Is(err, ingest.ErrNotIndexed) {
				return usagef("%v", err)
			}
			if sum == nil {
				return err
			}
			return a.batchDone(sum, func() error { return a.printEnrichSummary(sum) }, err, sum.Failed, sum.Files)
		},
	}
}

func (a *app) printEnrichSummary(s *ingest.EnrichSummary) error {
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REPO\tMODEL\tFILES\tSKIPPED\tENRICHED\tRETRIED\tFAILED\tTOO LARGE\tPROMOTED")
	fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", s.Repo, s.Model, s.Files, s.Skipped, s.Enriched, s.Retried, s.Failed, s.TooLarge, s.Promoted)
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, e := range s.Errors {
		fmt.Fprintf(a.stdout, "failed: %s\n", e)
	}
	return nil
}
