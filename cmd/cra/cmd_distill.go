package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/curate/distill"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb/schema"
)

// distillOptions is `cra distill` parsed.
type distillOptions struct {
	name         string
	trainingPlan string
	stages       []string
	from         string
	repos        []string
	sample       int
	seed         int64
	teacher      string
	budgetUSD    *float64
	maxCalls     int
	dryRun       bool
	batch        bool
	jobs         int
	wait         time.Duration
}

func (a *app) distillCommand() *cli.Command {
	return &cli.Command{
		Name:  "distill",
		Usage: "ask a teacher model (any OpenAI-compatible API) the student's prompts; keep its verified answers as a dataset",
		Description: "Sends the teacher of [teacher] the prompts the student sees — for synthetic tasks, rendered\n" +
			"from bootstrap's ground truth exactly as curate-data renders them; for failed runs, the\n" +
			"logged prompt of the student's call — and checks every answer against the ground truth\n" +
			"(rejection sampling, thresholds in [teacher.verify]): scope and precision by overlap, a\n" +
			"plan by validation and the F1 of its files, edits by reproducing the commit byte for byte.\n" +
			"Verified answers become the next version of the dataset --name (source distilled); every\n" +
			"outcome is in raw.distill_outcomes, every call in raw.retrieval_llm_calls (call_type distill).\n" +
			"An answer judged once is not judged again under the same --name: to judge the cached\n" +
			"answers by other thresholds, use a new --name (they come from the cache, free).\n\n" +
			"Every request is cached by the sha256 of its canonical form (model, messages, parameters):\n" +
			"a re-run never asks an answered request again. A request is sent again only by a later\n" +
			"run, and only when its send brought no answer: the calls in flight at a kill -9 (at most\n" +
			"--jobs), a timeout or a connection lost after sending. A provider may bill such a send;\n" +
			"it stays counted at its reservation, so --budget-usd caps the bill. --budget-usd is a\n" +
			"hard cap on what --name has spent in all: before each call the most it can cost (its bytes\n" +
			"as tokens, plus teacher.max_tokens, at [teacher.prices]) is reserved, after it its usage\n" +
			"settles; no call starts that could pass the cap, and the run stops cleanly saying what is\n" +
			"spent and left. A later run goes on only with a larger --budget-usd. --dry-run prints the\n" +
			"calls, tokens and cost it expects and calls nothing. --batch goes through the Batch API at\n" +
			"its discount; a restarted run picks its batches up by id.\n\n" +
			"The API key is read from the environment variable teacher.api_key_env names; it never\n" +
			"reaches a store, a log line or an export.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "name", Value: distill.DefaultName, Usage: "the distillation: its spending adds up across runs, its verified answers make the dataset of that name"},
			&cli.StringFlag{Name: "training-plan", Usage: "take the stages from a training plan (`FILE`, JSON: target_stage or data_criteria.stages)"},
			&cli.StringFlag{Name: "stage", Usage: "comma-separated stages (default: " + strings.Join(schema.SyntheticStages, ",") + ")"},
			&cli.StringFlag{Name: "from", Value: distill.FromSynthetic, Usage: "synthetic (bootstrap's tasks) or failed-runs (the student's calls in failed runs)"},
			&cli.StringSliceFlag{Name: "repos", Usage: "only these repositories (paths; repeat or comma-separate)"},
			&cli.IntFlag{Name: "sample", HideDefault: true, Usage: "take `N` tasks (or failed calls), chosen by --seed (default: all)"},
			&cli.Int64Flag{Name: "seed", HideDefault: true, Usage: "the seed of --sample"},
			&cli.StringFlag{Name: "teacher", Usage: "the teacher `MODEL` (default: teacher.model)"},
			&cli.Float64Flag{Name: "budget-usd", HideDefault: true, Usage: "hard cap, in USD, on what --name may have spent in all (earlier runs included); none by default"},
			&cli.IntFlag{Name: "max-calls", HideDefault: true, Usage: "send at most `N` requests this run (default: no limit)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the calls, tokens and cost expected; call nothing"},
			&cli.BoolFlag{Name: "batch", Usage: "use the Batch API (cheaper, slower; resumable by batch id)"},
			&cli.IntFlag{Name: "jobs", HideDefault: true, Aliases: []string{"j"}, Usage: "teacher calls in flight at once (default: teacher.max_concurrency)"},
			&cli.DurationFlag{Name: "wait", HideDefault: true, Usage: "wait up to `DURATION` for another run of the same --name; by default exit 1 at once, naming it"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			opts, err := parseDistill(cmd)
			if err != nil {
				return err
			}
			return a.runDistill(ctx, opts)
		},
	}
}

func parseDistill(cmd *cli.Command) (distillOptions, error) {
	if cmd.Args().Len() > 0 {
		return distillOptions{}, usage.Errorf("distill takes no arguments (see `cra distill --help`)")
	}
	opts := distillOptions{name: cmd.String("name"), trainingPlan: cmd.String("training-plan"), stages: splitList(cmd.String("stage")),
		from: cmd.String("from"), sample: cmd.Int("sample"), seed: cmd.Int64("seed"), teacher: cmd.String("teacher"),
		maxCalls: cmd.Int("max-calls"), dryRun: cmd.Bool("dry-run"), batch: cmd.Bool("batch"), jobs: cmd.Int("jobs")}
	if opts.trainingPlan != "" && len(opts.stages) > 0 {
		return opts, usage.Errorf("--training-plan and --stage both choose stages: give one")
	}
	if opts.from != distill.FromSynthetic && opts.from != distill.FromFailedRuns {
		return opts, usage.Errorf("--from %q: use %s or %s", opts.from, distill.FromSynthetic, distill.FromFailedRuns)
	}
	if cmd.IsSet("seed") && opts.sample == 0 {
		return opts, usage.Errorf("--seed chooses the --sample: give --sample N too")
	}
	if err := checkCounts(map[string]int{"sample": opts.sample, "max-calls": opts.maxCalls, "jobs": opts.jobs}); err != nil {
		return opts, err
	}
	if cmd.IsSet("budget-usd") {
		b := cmd.Float64("budget-usd")
		if b < 0 {
			return opts, usage.Errorf("--budget-usd must not be negative")
		}
		opts.budgetUSD = &b
	}
	opts.repos = repoPaths(cmd, "repos")
	wait, err := waitOf(cmd)
	opts.wait = wait
	return opts, err
}

func (a *app) runDistill(ctx context.Context, opts distillOptions) error {
	return runBatch(ctx, a, func(ctx context.Context, env batchEnv) (*distill.Summary, int, int, error) {
		sum, err := a.distill(ctx, env, opts)
		if sum == nil {
			return nil, 0, 0, err
		}
		return sum, sum.Totals.Failed, sum.Totals.Items, err
	}, a.printDistillSummary)
}

// distill runs cra distill under runBatch's configuration and progress.
func (a *app) distill(ctx context.Context, env batchEnv, opts distillOptions) (*distill.Summary, error) {
	cfg := env.cfg
	budget, err := llm.NewBudget(cfg)
	if err != nil {
		return nil, err
	}
	t := cfg.Teacher
	if opts.teacher != "" {
		t.Model = opts.teacher
	}
	teacher, err := llm.Teacher(t)
	if err != nil {
		return nil, usage.Wrap(err)
	}
	d := distill.Options{Name: opts.name, From: opts.from, Stages: opts.stages, Repos: opts.repos, Sample: opts.sample,
		Seed: opts.seed, Teacher: teacher, Prices: cfg.Teacher.Prices, Verify: cfg.Teacher.Verify, Curate: cfg.Curate,
		Budget: budget, BudgetUSD: opts.budgetUSD, MaxCalls: opts.maxCalls, DryRun: opts.dryRun, Batch: opts.batch,
		BatchPoll: time.Duration(cfg.Teacher.BatchPollSeconds) * time.Second, Jobs: opts.jobs, Wait: opts.wait, Log: a.log,
		Progress: env.progress}
	if d.TrainingPlan, err = readTrainingPlan(opts.trainingPlan); err != nil {
		return nil, err
	}
	if d.TrainingPlan != nil {
		if d.Stages, err = distill.PlanStages(d.TrainingPlan); err != nil {
			return nil, usage.Errorf("--training-plan %s: %v", opts.trainingPlan, err)
		}
	}
	return distill.Run(ctx, a.home.Dir, d)
}

func (a *app) printDistillSummary(s *distill.Summary) error {
	how := "from " + s.Source
	if s.Batch {
		how += ", through the Batch API"
	}
	stages := make([]string, 0, len(s.Stages))
	for st := range s.Stages {
		stages = append(stages, st)
	}
	sort.Slice(stages, func(i, j int) bool { return stageOrder(stages[i]) < stageOrder(stages[j]) })
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	if s.DryRun {
		fmt.Fprintf(a.stdout, "dry run of %s with teacher %s, %s: nothing is called or written\n\n", s.Name, s.Teacher, how)
		fmt.Fprintln(tw, "STAGE\tITEMS\tFROM CACHE\tCALLS\tPROMPT TOKENS\tCOMPLETION TOKENS\tCOST USD\tAT MOST USD\t")
		est := func(name string, st *distill.StageSummary) *distill.Estimate {
			e := st.Estimate
			if e == nil {
				e = &distill.Estimate{}
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%.4f\t%.4f\t\n", name, st.Items, st.FromCache, e.Calls, e.PromptTokens,
				e.CompletionTokens, e.CostUSD, e.MaxCostUSD)
			return e
		}
		for _, st := range stages {
			est(st, s.Stages[st])
		}
		total := est("total", &s.Totals)
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "\nestimated cost $%.4f (±%.0f%%), at most $%.4f; %s spent $%.4f so far", total.CostUSD, s.Margin*100,
			total.MaxCostUSD, s.Name, s.SpentUSD)
		if s.BudgetUSD != nil {
			fmt.Fprintf(a.stdout, " of a $%.4f budget ($%.4f left)", *s.BudgetUSD, *s.LeftUSD)
		}
		fmt.Fprintln(a.stdout)
		a.printSkipped(s)
		return nil
	}
	fmt.Fprintf(a.stdout, "distill %s (run %d) with teacher %s, %s\n\n", s.Name, s.RunID, s.Teacher, how)
	// Items = verified + rejected + failed + left; verified + rejected =
	// from cache + from teacher; calls are requests (identical prompts
	// share one), beside the tokens and cost they took.
	fmt.Fprintln(tw, "STAGE\tITEMS\tVERIFIED\tREJECTED\tFAILED\tLEFT\tRATE\tFROM CACHE\tFROM TEACHER\tCALLS\tTOKENS IN\tTOKENS OUT\tCOST USD\t")
	row := func(name string, st *distill.StageSummary) {
		rate := "-"
		if st.Verified+st.Rejected > 0 {
			rate = fmt.Sprintf("%.0f%%", st.Rate*100)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t%.4f\t\n", name, st.Items, st.Verified, st.Rejected,
			st.Failed, st.Left, rate, st.FromCache, st.FromTeacher, st.Calls, st.PromptTokens, st.CompletionTokens, st.CostUSD)
	}
	for _, st := range stages {
		row(st, s.Stages[st])
	}
	row("total", &s.Totals)
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "\nthis run $%.4f; %s spent $%.4f in all", s.Totals.CostUSD, s.Name, s.SpentUSD)
	if s.BudgetUSD != nil {
		fmt.Fprintf(a.stdout, " of a $%.4f budget ($%.4f left)", *s.BudgetUSD, *s.LeftUSD)
	}
	fmt.Fprintln(a.stdout)
	a.printSkipped(s)
	switch s.Stopped {
	case distill.StopBudget:
		fmt.Fprintf(a.stdout, "stopped: the next call could cost more than the budget left; %d items left: pass a larger --budget-usd to go on\n", s.Totals.Left)
	case distill.StopMaxCalls:
		fmt.Fprintf(a.stdout, "stopped: --max-calls reached; %d items left: run again to go on\n", s.Totals.Left)
	case distill.StopProviderFault:
		fmt.Fprintf(a.stdout, "stopped: the teacher reported more completion tokens than max_tokens allows (see the error); %d items left\n", s.Totals.Left)
	case "interrupted":
		fmt.Fprintf(a.stdout, "interrupted: what was answered is saved; %d items left: run the same command again to go on\n", s.Totals.Left)
	}
	if s.Totals.Failed > 0 {
		fmt.Fprintf(a.stdout, "%d items failed: their requests got no usable answer; the next run asks them again\n", s.Totals.Failed)
	}
	if s.Dataset != "" {
		fmt.Fprintf(a.stdout, "dataset %s: export it with `cra datasets export %s`\n", s.Dataset, s.Dataset)
	}
	return nil
}

func (a *app) printSkipped(s *distill.Summary) {
	if len(s.Skipped) == 0 {
		return
	}
	reasons := make([]string, 0, len(s.Skipped))
	for r, n := range s.Skipped {
		reasons = append(reasons, fmt.Sprintf("%s %d", r, n))
	}
	sort.Strings(reasons)
	fmt.Fprintf(a.stdout, "not asked: %s\n", strings.Join(reasons, ", "))
}

// stageOrder sorts stages in pipeline order.
func stageOrder(stage string) int {
	for i, s := range schema.SyntheticStages {
		if s == stage {
			return i
		}
	}
	return len(schema.SyntheticStages)
}
