package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/ingest"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/shards"
)

// indexOptions is `cra index` parsed.
type indexOptions struct {
	repos []string
	rev   string
	jobs  int
	wait  time.Duration
	shard *shards.Shard // nil: every repository
}

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
			"A repository another `cra index` is indexing is skipped as busy (exit 1) unless --wait.\n" +
			"Limits come from [index] in config.toml (max_file_bytes, co_change_max_files).\n" +
			"With --shard K/N (or $JOB_COMPLETION_INDEX and --shard-count / $CRA_SHARD_COUNT) only the\n" +
			"repositories of shard K of N are indexed, as `cra bootstrap --shard` selects them.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "rev", Usage: "index this revision (branch, tag, commit) from git objects instead of the work tree"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Usage: "parse workers (default: all cores)"},
			waitFlag(),
		}, shardFlags()...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			opts, err := parseIndex(cmd)
			if err != nil {
				return err
			}
			return a.runIndex(ctx, opts)
		},
	}
}

func parseIndex(cmd *cli.Command) (indexOptions, error) {
	if cmd.Args().Len() == 0 {
		return indexOptions{}, usage.Errorf("index needs at least one repository path (see `cra index --help`)")
	}
	if err := checkCounts(map[string]int{"jobs": cmd.Int("jobs")}); err != nil {
		return indexOptions{}, err
	}
	wait, err := waitOf(cmd)
	if err != nil {
		return indexOptions{}, err
	}
	shard, err := optionalShard(cmd)
	return indexOptions{repos: cmd.Args().Slice(), rev: cmd.String("rev"), jobs: int(cmd.Int("jobs")), wait: wait, shard: shard}, err
}

func (a *app) runIndex(ctx context.Context, opts indexOptions) error {
	repos, kept := a.selectShard(ctx, opts.repos, opts.shard)
	return runBatch(ctx, a, func(ctx context.Context, env batchEnv) (*ingest.Summary, int, int, error) {
		sum, err := ingest.IndexRepos(ctx, a.home.Dir, repos, ingest.Options{
			Rev:              opts.rev,
			Jobs:             opts.jobs,
			MaxFileBytes:     env.cfg.Index.MaxFileBytes,
			CoChangeMaxFiles: env.cfg.Index.CoChangeMaxFiles,
			Progress:         env.progress,
			Log:              a.log,
			Wait:             opts.wait,
		})
		if sum == nil {
			return nil, 0, 0, err
		}
		return sum, sum.Failed + sum.Busy, len(sum.Repos), err
	}, func(sum *ingest.Summary) error {
		if kept != "" {
			fmt.Fprintln(a.stdout, kept)
		}
		return a.printIndexSummary(sum)
	})
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
