package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/curate"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// curateOptions is `cra curate-data` parsed.
type curateOptions struct {
	sources      []string
	kinds        []string
	positive     float64
	stages       []string
	repos        []string
	holdoutRepos []string
	name         string
	trainingPlan string
	// validationOnly builds an evaluation set: no train split, on purpose.
	validationOnly bool
	wait           time.Duration
}

func (a *app) curateCommand() *cli.Command {
	return &cli.Command{
		Name:  "curate-data",
		Usage: "build a training dataset (SFT, preference pairs, KTO rows) from synthetic ground truth, logged runs and distilled answers",
		Description: "Sources (--source):\n" +
			"  synthetic  bootstrap's ground truth rendered as SFT examples (below);\n" +
			"  logged     the agent's own runs (cra solve, cra eval), each example the exact prompt the\n" +
			"             model saw as logged: implement attempts labelled by their tests, plan passes of\n" +
			"             runs whose parts all completed, stage answers an eval scored against ground\n" +
			"             truth, scope/precision answers of successful solve runs that kept every file\n" +
			"             the diff touched; pairs from coder retries (failed first attempt rejected, passing\n" +
			"             retry chosen, on the first attempt's prompt), adjustments that then succeeded\n" +
			"             (revised steps chosen over the steps as planned) and wrong eval answers (ground\n" +
			"             truth chosen); KTO rows from every labelled answer;\n" +
			"  distilled  cra distill's verified teacher answers (SFT) and teacher-vs-student pairs;\n" +
			"  all        every source.\n" +
			"Kinds (--kind): sft, preference (chosen/rejected on one prompt), kto (prompt, completion,\n" +
			"label), or all; --positive-fraction balances KTO rows per stage. Every row records its\n" +
			"source, signal and evidence (run, pass, call and attempt ids, tests, scores). Examples of a\n" +
			"task an eval scored never reach the train split: a run of cra eval is validation data, and\n" +
			"a dataset whose train split would hold one is refused (exit 2).\n\n" +
			"Synthetic data: renders each target of the chosen stages as a chat example\n" +
			"[system, user, assistant] with the same prompt templates the agent uses at inference,\n" +
			"fits it to models.context_window (chars/4 plus budget.safety_margin; low-priority\n" +
			"context is trimmed first, else the example is dropped), drops empty and trivial answers,\n" +
			"exact duplicates, MinHash near-duplicates ([curate] near_dup_threshold, minhash_bands x\n" +
			"minhash_rows over word 5-grams of task and answer) and, with [curate] secrets = \"drop\",\n" +
			"examples holding credentials (\"redact\" replaces them), caps each repository at\n" +
			"per_repo_cap examples per stage, and splits by a hash of repo and commit so that one\n" +
			"commit's examples share a split. Examples go to raw.training_examples under the\n" +
			"dataset's name as a new version (1, 2, ...): earlier versions stay as they were, so\n" +
			"`cra datasets export NAME@N` gives the same rows again; training_datasets,\n" +
			"dataset_versions and training_plans record it. The version appears there in one\n" +
			"transaction at the end (its examples are staged in raw.training_examples_staging\n" +
			"until then): a killed run shows nothing, and running it again builds the same\n" +
			"version afresh. A --repos or --holdout-repos value that\n" +
			"names no mined repository, or a selection that gives no example, is an error (exit 2)\n" +
			"and writes nothing; so is a dataset with no train example for a stage --stages or the\n" +
			"training plan names, or for every stage (held-out repositories, the validation fraction\n" +
			"or the plan's criteria put them all in validation: the error says which and what to\n" +
			"change; --validation-only builds such a set on purpose). A stage with less than " + fmt.Sprintf("%.0f %%", 100*curate.MinTrainShare) + "\n" +
			"of its examples in train is a warning, logged and in the summary (--json: warnings).\n" +
			"Export it with `cra datasets export NAME`.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "source", Usage: "where examples come from: synthetic, logged, distilled or all; comma-separate several (default: the training plan's, else synthetic)"},
			&cli.StringFlag{Name: "kind", Usage: "what to build: sft, preference, kto or all; comma-separate several (default: the training plan's, else sft)"},
			&cli.Float64Flag{Name: "positive-fraction", Usage: "keep KTO rows so that positives are this share per stage (default: the training plan's, else keep all)"},
			&cli.StringFlag{Name: "stages", Usage: "comma-separated stages (default: the training plan's, else every stage of the sources: " + strings.Join(schema.SyntheticStages, ",") + " for synthetic, " + strings.Join(schema.LoggedStages, ",") + " for logged)"},
			&cli.StringSliceFlag{Name: "repos", Usage: "only these repositories (paths; repeat or comma-separate)"},
			&cli.StringSliceFlag{Name: "holdout-repos", Usage: "put these repositories in the validation split whole (default: [curate] holdout_repos)"},
			&cli.StringFlag{Name: "name", Value: "synthetic", Usage: "the dataset's name (a re-run adds a version)"},
			&cli.StringFlag{Name: "training-plan", Usage: "a training plan `FILE` (plan.json of cra train-plan): its data criteria choose the sources, kinds, stages, repositories, KTO balance and logged outcome the flags leave unset, and the dataset is recorded under it"},
			&cli.BoolFlag{Name: "validation-only", Usage: "build an evaluation set: a dataset with no train example is not refused"},
			&cli.DurationFlag{Name: "wait", Usage: "wait up to `DURATION` for another run building the same dataset name; by default exit 1 at once, naming it"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			opts, err := parseCurate(cmd)
			if err != nil {
				return err
			}
			return a.runCurate(ctx, opts)
		},
	}
}

func parseCurate(cmd *cli.Command) (curateOptions, error) {
	if cmd.Args().Len() > 0 {
		return curateOptions{}, usage.Errorf("curate-data takes no arguments (see `cra curate-data --help`)")
	}
	opts := curateOptions{name: cmd.String("name"), positive: cmd.Float64("positive-fraction"),
		trainingPlan: cmd.String("training-plan"), validationOnly: cmd.Bool("validation-only"), wait: cmd.Duration("wait")}
	for flag, all := range map[string][]string{"source": curate.Sources, "kind": kb.ExampleKinds} {
		var list []string
		for _, v := range splitList(cmd.String(flag)) {
			if v == "all" {
				list = append(list, all...)
				continue
			}
			if !slices.Contains(all, v) {
				return opts, usage.Errorf("--%s %q: use %s or all", flag, v, strings.Join(all, ", "))
			}
			list = append(list, v)
		}
		if flag == "source" {
			opts.sources = list
		} else {
			opts.kinds = list
		}
	}
	// Stages left unset: a training plan's, else every synthetic stage.
	if cmd.IsSet("stages") {
		opts.stages = splitList(cmd.String("stages"))
	}
	opts.repos = repoPaths(cmd, "repos")
	opts.holdoutRepos = repoPaths(cmd, "holdout-repos")
	return opts, nil
}

func (a *app) runCurate(ctx context.Context, opts curateOptions) error {
	return runBatch(ctx, a, func(ctx context.Context, env batchEnv) (*curate.Summary, int, int, error) {
		budget, err := llm.NewBudget(env.cfg)
		if err != nil {
			return nil, 0, 0, err
		}
		plan, err := readTrainingPlan(opts.trainingPlan)
		if err != nil {
			return nil, 0, 0, err
		}
		sum, err := curate.Curate(ctx, a.home.Dir, curate.Options{MemoryLimit: memoryLimit(curate.DefaultMemoryLimit), Name: opts.name, Sources: opts.sources,
			Kinds: opts.kinds, PositiveFraction: opts.positive, Stages: opts.stages, Repos: opts.repos, HoldoutRepos: opts.holdoutRepos,
			TrainingPlan: plan, Curate: env.cfg.Curate, Budget: budget, Log: a.log, Wait: opts.wait,
			ValidationOnly: opts.validationOnly, Progress: env.progress})
		return sum, 0, 0, err
	}, a.printCurateSummary)
}

func (a *app) printCurateSummary(sum *curate.Summary) error {
	from := fmt.Sprintf("%d tasks", sum.Tasks)
	if sum.Runs > 0 {
		from += fmt.Sprintf(", %d logged runs", sum.Runs)
	}
	fmt.Fprintf(a.stdout, "dataset %s@%d (training plan %d) from %s\n\n", sum.Dataset, sum.Version, sum.PlanID, from)
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tSTAGE\tTRAIN\tVALIDATION")
	for _, kind := range kb.ExampleKinds {
		for _, s := range sortedStages(sum.Kinds[kind]) {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\n", kind, s, sum.Kinds[kind][s][kb.SplitTrain], sum.Kinds[kind][s][kb.SplitValidation])
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if kto := sum.Labels[kb.KindKTO]; len(kto) > 0 {
		fmt.Fprintf(a.stdout, "\nKTO labels: %d positive, %d negative\n", kto[kb.LabelPositive], kto[kb.LabelNegative])
	}
	for _, section := range []struct {
		title  string
		counts map[string]int
	}{{"signals", sum.Signals}, {"dropped", sum.Dropped}} {
		if len(section.counts) == 0 {
			continue
		}
		fmt.Fprintf(a.stdout, "\n%s:\n", section.title)
		for _, k := range sortedStages(section.counts) {
			fmt.Fprintf(a.stdout, "  %s %d\n", k, section.counts[k])
		}
	}
	fmt.Fprintf(a.stdout, "\ntrimmed to fit %d, credentials redacted in %d\n", sum.Trimmed, sum.Redacted)
	for _, w := range sum.Warnings {
		fmt.Fprintf(a.stdout, "warning: %s\n", w)
	}
	return nil
}
