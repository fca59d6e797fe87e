package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/bootstrap"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/shards"
)

// bootstrapOptions is `cra bootstrap` parsed.
type bootstrapOptions struct {
	repos      []string
	jobs       int
	maxCommits int
	since      time.Time
	wait       time.Duration
	shard      *shards.Shard // nil: every repository
}

func (a *app) bootstrapCommand() *cli.Command {
	return &cli.Command{
		Name:      "bootstrap",
		Usage:     "mine cloned repositories' git history into synthetic ground truth (the nightly batch)",
		ArgsUsage: "<repo>...",
		Description: "Replays every new commit of every branch (normal or bare clones; remote-tracking\n" +
			"branches and tags included) against its own first parent. Commits pass a filter\n" +
			"([bootstrap] in config.toml: no merges, no bots, a meaningful message, 1 to max_files\n" +
			"source files and at most max_changed_lines lines, no lockfiles, vendored, generated or\n" +
			"binary files); for each one that passes, the ground truth of every pipeline stage\n" +
			"(scope, precision, plan, implement) is rebuilt from the parent state alone and stored in\n" +
			"raw.synthetic_tasks and raw.synthetic_targets. Implement edits are verified to reproduce\n" +
			"the commit byte for byte. Every commit's outcome is in raw.bootstrap_commits (the funnel:\n" +
			"raw.bootstrap_funnel).\n\n" +
			"Incremental: only commits not seen by an earlier run are walked; a run with no new\n" +
			"commits finishes at once. Resumable: a killed run keeps what it wrote; run it again.\n" +
			"--since and --max-commits only defer work: commits outside them are mined by a later run.\n" +
			"A repository another `cra bootstrap` holds is skipped as busy (exit 1) unless --wait.\n" +
			"Repositories not in the knowledge base are indexed first. A repository that fails\n" +
			"(not a repository, no commits, shallow clone, unreadable objects) is recorded in\n" +
			"raw.bootstrap_repos and the batch goes on (exit 1).\n\n" +
			"With --shard K/N (or $JOB_COMPLETION_INDEX and --shard-count / $CRA_SHARD_COUNT) only the\n" +
			"repositories whose stable key (remote.origin.url, else the folder's name) falls in shard K\n" +
			"of N are mined: every pod of an Indexed Job is given the same list. See `cra shards`.",
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Usage: "workers (default: all cores)"},
			&cli.IntFlag{Name: "max-commits", Usage: "mine at most N new commits per repository this run (the rest next run)"},
			&cli.StringFlag{Name: "since", Usage: "mine only commits committed on or after DATE (YYYY-MM-DD or RFC 3339); older ones stay for a later run"},
			waitFlag(),
		}, shardFlags()...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			opts, err := parseBootstrap(cmd)
			if err != nil {
				return err
			}
			return a.runBootstrap(ctx, opts)
		},
	}
}

func parseBootstrap(cmd *cli.Command) (bootstrapOptions, error) {
	if cmd.Args().Len() == 0 {
		return bootstrapOptions{}, usage.Errorf("bootstrap needs at least one repository path (see `cra bootstrap --help`)")
	}
	if err := checkCounts(map[string]int{"jobs": cmd.Int("jobs"), "max-commits": cmd.Int("max-commits")}); err != nil {
		return bootstrapOptions{}, err
	}
	since, err := parseSince(cmd.String("since"))
	if err != nil {
		return bootstrapOptions{}, err
	}
	wait, err := waitOf(cmd)
	if err != nil {
		return bootstrapOptions{}, err
	}
	shard, err := optionalShard(cmd)
	return bootstrapOptions{repos: cmd.Args().Slice(), jobs: cmd.Int("jobs"), maxCommits: cmd.Int("max-commits"),
		since: since, wait: wait, shard: shard}, err
}

func (a *app) runBootstrap(ctx context.Context, opts bootstrapOptions) error {
	repos, kept := a.selectShard(ctx, opts.repos, opts.shard)
	return runBatch(ctx, a, func(ctx context.Context, env batchEnv) (*bootstrap.Summary, int, int, error) {
		sum, err := bootstrap.Run(ctx, a.home.Dir, repos, bootstrap.Options{
			Jobs:             opts.jobs,
			MaxCommits:       opts.maxCommits,
			Since:            opts.since,
			Wait:             opts.wait,
			Filter:           env.cfg.Bootstrap,
			MaxFileBytes:     env.cfg.Index.MaxFileBytes,
			CoChangeMaxFiles: env.cfg.Index.CoChangeMaxFiles,
			MaxParts:         env.cfg.Orchestrator.MaxParts,
			MemoryLimit:      memoryLimit(bootstrap.DefaultMemoryLimit),
			Progress:         env.progress,
			Log:              a.log,
		})
		if sum == nil {
			return nil, 0, 0, err
		}
		return sum, sum.Failed + sum.Busy, len(sum.Repos), err
	}, func(sum *bootstrap.Summary) error {
		if kept != "" {
			fmt.Fprintln(a.stdout, kept)
		}
		return a.printBootstrapSummary(sum)
	})
}

func parseSince(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{"2006-01-02", time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, usage.Errorf("--since %q: use YYYY-MM-DD or RFC 3339 (2026-01-31T00:00:00Z)", s)
}

func (a *app) printBootstrapSummary(sum *bootstrap.Summary) error {
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REPO\tSTATUS\tSEEN\tPASSED FILTER\tBUILT\tVERIFIED\tSECONDS")
	for _, r := range sum.Repos {
		status := r.Status
		if r.Error != "" && r.Status != kb.StatusInterrupted {
			status += ": " + r.Error
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%.1f\n", r.Repo, status, r.Seen,
			milestone(r.Steps, bootstrap.MilestonePassed), milestone(r.Steps, bootstrap.MilestoneBuilt), r.Verified, r.Seconds)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "\nfunnel over %d repositories (run %d):\n", len(sum.Repos), sum.RunID)
	tw = tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	for _, s := range sum.Steps {
		if s.Milestone {
			fmt.Fprintf(tw, "%s\t\t%d\t\n", strings.ReplaceAll(s.Step, "_", " "), s.Remaining)
		} else {
			fmt.Fprintf(tw, "  - %s\t-%d\t%d\t\n", s.Step, s.Rejected, s.Remaining)
		}
	}
	return tw.Flush()
}

func milestone(steps []bootstrap.FunnelStep, name string) int {
	for _, s := range steps {
		if s.Milestone && s.Step == name {
			return s.Remaining
		}
	}
	return 0
}
