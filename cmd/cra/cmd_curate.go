package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/curate"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/kb"
)

func (a *app) curateCommand() *cli.Command {
	return &cli.Command{
		Name:  "curate-data",
		Usage: "build a training dataset from synthetic ground truth (raw.training_examples)",
		Description: "Renders each synthetic target of the chosen stages as a chat example\n" +
			"[system, user, assistant] with the same prompt templates the agent uses at inference,\n" +
			"fits it to models.context_window (chars/4 plus budget.safety_margin; low-priority\n" +
			"context is trimmed first, else the example is dropped), drops empty and trivial answers,\n" +
			"exact duplicates, MinHash near-duplicates ([curate] near_dup_threshold, minhash_bands x\n" +
			"minhash_rows over word 5-grams of task and answer) and, with [curate] secrets = \"drop\",\n" +
			"examples holding credentials (\"redact\" replaces them), caps each repository at\n" +
			"per_repo_cap examples per stage, and splits by a hash of repo and commit so that one\n" +
			"commit's examples share a split. Examples go to raw.training_examples under the\n" +
			"dataset's name, replacing a previous dataset of that name; training_datasets and\n" +
			"training_plans record it. Export it with `cra datasets export NAME`.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "source", Value: "synthetic", Usage: "where examples come from: synthetic (bootstrap's ground truth)"},
			&cli.StringFlag{Name: "stages", Value: strings.Join(kb.SyntheticStages, ","), Usage: "comma-separated stages"},
			&cli.StringSliceFlag{Name: "repos", Usage: "only these repositories (paths; repeat or comma-separate)"},
			&cli.StringSliceFlag{Name: "holdout-repos", Usage: "put these repositories in the validation split whole"},
			&cli.StringFlag{Name: "name", Value: "synthetic", Usage: "the dataset's name (a re-run replaces it)"},
			&cli.StringFlag{Name: "training-plan", Usage: "a training plan (JSON) the dataset follows; recorded with it"},
			&cli.DurationFlag{Name: "wait", Usage: "wait up to `DURATION` for another run building the same dataset name; by default exit 1 at once, naming it"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() > 0 {
				return usagef("curate-data takes no arguments (see `cra curate-data --help`)")
			}
			if src := cmd.String("source"); src != "synthetic" {
				return usagef("--source %q: only synthetic is supported so far (logged runs come with the agent)", src)
			}
			cfg, err := config.Load(a.home.ConfigPath())
			if err != nil {
				return err
			}
			budget, err := llm.NewBudget(cfg)
			if err != nil {
				return err
			}
			opts := curate.Options{
				Name: cmd.String("name"), Curate: cfg.Curate, Budget: budget, Log: a.log, Wait: cmd.Duration("wait"),
				Stages: splitList(cmd.String("stages")),
			}
			for _, r := range splitAll(cmd.StringSlice("repos")) {
				opts.Repos = append(opts.Repos, kb.CanonicalPath(r))
			}
			for _, r := range splitAll(cmd.StringSlice("holdout-repos")) {
				opts.HoldoutRepos = append(opts.HoldoutRepos, kb.CanonicalPath(r))
			}
			if p := cmd.String("training-plan"); p != "" {
				if opts.TrainingPlan, err = os.ReadFile(p); err != nil {
					return usagef("--training-plan: %v", err)
				}
			}
			sum, err := curate.CurateSynthetic(ctx, a.home.Dir, opts)
			if err != nil {
				if strings.HasPrefix(err.Error(), "stage ") || strings.HasPrefix(err.Error(), "curate.") {
					return usagef("%v", err)
				}
				return err
			}
			return a.batchDone(sum, func() error { return a.printCurateSummary(sum) }, nil, 0, 0)
		},
	}
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func splitAll(xs []string) []string {
	var out []string
	for _, x := range xs {
		out = append(out, splitList(x)...)
	}
	return out
}

func (a *app) printCurateSummary(sum *curate.Summary) error {
	fmt.Fprintf(a.stdout, "dataset %s (training plan %d) from %d tasks\n\n", sum.Dataset, sum.PlanID, sum.Tasks)
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STAGE\tTRAIN\tVALIDATION")
	stages := make([]string, 0, len(sum.Examples))
	for s := range sum.Examples {
		stages = append(stages, s)
	}
	sort.Strings(stages)
	for _, s := range stages {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", s, sum.Examples[s][kb.SplitTrain], sum.Examples[s][kb.SplitValidation])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(sum.Dropped) > 0 {
		reasons := make([]string, 0, len(sum.Dropped))
		for r := range sum.Dropped {
			reasons = append(reasons, r)
		}
		sort.Strings(reasons)
		fmt.Fprintln(a.stdout, "\ndropped:")
		for _, r := range reasons {
			fmt.Fprintf(a.stdout, "  %s %d\n", r, sum.Dropped[r])
		}
	}
	fmt.Fprintf(a.stdout, "\ntrimmed to fit %d, credentials redacted in %d\n", sum.Trimmed, sum.Redacted)
	return nil
}
