package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/ingest"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/progress"
)

func (a *app) indexCommand() *cli.Command {
	return &cli.Command{
		Name:      "index",
		Usage:     "index repositories' code and git history into the knowledge base (curated.duckdb)",
		ArgsUsage: "<repo>...",
		Description: "Walks each repository's work tree (or, with --rev, a revision read straight from git\n" +
			"objects: bare clones work too), parses Python, JavaScript, TypeScript/TSX and Go with\n" +
			"tree-sitter, resolves imports and references, and loads the history of HEAD (or REV).\n" +
			"A re-run re-parses only files whose content changed, removes files that are gone and\n" +
			"adds only new commits. Skipped files (binary, too large, vendored, generated, minified,\n" +
			"gitignored, symlinks leaving the repo, submodules) are listed with their reason in the\n" +
			"curated table skipped_files. Each repository's run is logged in raw.index_runs.\n\n" +
			"Limits come from [index] in config.toml (max_file_bytes, co_change_max_files).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "rev", Usage: "index this revision (branch, tag, commit) from git objects instead of the work tree"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Usage: "parse workers (default: all cores)"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() == 0 {
				return usagef("index needs at least one repository path (see `cra index --help`)")
			}
			if cmd.Int("jobs") < 0 {
				return usagef("--jobs must be positive")
			}
			cfg, err := config.Load(a.home.ConfigPath())
			if err != nil {
				return err
			}
			p := progress.Start(progress.Options{Out: a.stderr, TTY: isTerminal(a.stderr), Log: a.log})
			sum, err := ingest.IndexRepos(ctx, a.home.Dir, cmd.Args().Slice(), ingest.Options{
				Rev:              cmd.String("rev"),
				Jobs:             int(cmd.Int("jobs")),
				MaxFileBytes:     cfg.Index.MaxFileBytes,
				CoChangeMaxFiles: cfg.Index.CoChangeMaxFiles,
				Progress:         p,
				Log:              a.log,
			})
			p.Stop()
			if sum == nil {
				return err
			}
			return a.batchDone(sum, func() error { return a.printIndexSummary(sum) }, err, sum.Failed, len(sum.Repos))
		},
	}
}

func (a *app) printIndexSummary(sum *ingest.Summary) error {
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REPO\tSTATUS\tFILES\tCHANGED\tDELETED\tSKIPPED\tCOMMITS\tNEW COMMITS\tSECONDS")
	for _, r := range sum.Repos {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%.1f\n", r.Repo, r.Status, r.Files, r.FilesChanged,
			r.FilesDeleted, r.FilesSkipped, r.Commits, r.CommitsAdded, r.Seconds)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range sum.Repos {
		if len(r.SkipReasons) > 0 {
			reasons := make([]string, 0, len(r.SkipReasons))
			for k, n := range r.SkipReasons {
				reasons = append(reasons, fmt.Sprintf("%s %d", k, n))
			}
			sort.Strings(reasons)
			fmt.Fprintf(a.stdout, "%s: skipped %s\n", r.Repo, strings.Join(reasons, ", "))
		}
		for _, w := range r.Warnings {
			fmt.Fprintf(a.stdout, "%s: warning: %s\n", r.Repo, w)
		}
		if r.Error != "" {
			fmt.Fprintf(a.stdout, "%s: error: %s\n", r.Repo, r.Error)
		}
	}
	return nil
}
