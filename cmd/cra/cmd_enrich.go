package main

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/ingest"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb/schema"
)

// enrichOptions is `cra enrich` parsed.
type enrichOptions struct {
	repo    string
	promote bool
	jobs    int
	wait    time.Duration
}

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
			"which scope's metadata tier reads. A repository another `cra enrich` is working on is\n" +
			"skipped as busy (exit 1) unless --wait.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "promote", Usage: "copy the newest valid output per file into curated file_metadata"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Usage: "files in flight at once (default: all cores; the provider's max_concurrency bounds calls)"},
			waitFlag(),
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			opts, err := parseEnrich(cmd)
			if err != nil {
				return err
			}
			return a.runEnrich(ctx, opts)
		},
	}
}

func parseEnrich(cmd *cli.Command) (enrichOptions, error) {
	if cmd.Args().Len() != 1 {
		return enrichOptions{}, usage.Errorf("enrich needs one repository path (see `cra enrich --help`)")
	}
	if err := checkCounts(map[string]int{"jobs": cmd.Int("jobs")}); err != nil {
		return enrichOptions{}, err
	}
	wait, err := waitOf(cmd)
	return enrichOptions{repo: cmd.Args().First(), promote: cmd.Bool("promote"), jobs: cmd.Int("jobs"), wait: wait}, err
}

func (a *app) runEnrich(ctx context.Context, opts enrichOptions) error {
	return runBatch(ctx, a, func(ctx context.Context, env batchEnv) (*ingest.EnrichSummary, int, int, error) {
		model, err := llm.NewRouter(env.cfg).Resolve(llm.RoleReasoning, schema.StageEnrichment)
		if err != nil {
			return nil, 0, 0, usage.Errorf("%v", err)
		}
		sum, err := ingest.Enrich(ctx, a.home.Dir, opts.repo, ingest.EnrichOptions{
			Model: model, Jobs: opts.jobs, Promote: opts.promote, Progress: env.progress, Log: a.log, Wait: opts.wait,
		})
		if errors.Is(err, ingest.ErrNotIndexed) {
			return nil, 0, 0, usage.Errorf("%v", err)
		}
		if sum == nil {
			return nil, 0, 0, err
		}
		return sum, sum.Failed, sum.Files, err
	}, a.printEnrichSummary)
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
