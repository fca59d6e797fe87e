package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/agent/eval"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/ingest/walk"
	"github.com/cra-dev/cra/internal/stats"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
)

// evalOptions is `cra eval` parsed.
type evalOptions struct {
	repos, holdoutRepos []string
	split               string
	sample              int
	seed                int64
	stages, oracle      []string
	jobs                int
	name, compare       string
	wait                time.Duration
}

func (a *app) evalCommand() *cli.Command {
	return &cli.Command{
		Name:  "eval",
		Usage: "replay the agent on held-out history and score it stage by stage",
		Description: "Runs cra solve on bootstrap's synthetic tasks that curate-data never trains on (the\n" +
			"validation split of [curate] validation_fraction, and the repositories of [curate]\n" +
			"holdout_repos): each in a worktree at the commit's parent, over a knowledge base of that\n" +
			"parent revision, with the cleaned commit message as the task, and scores every stage\n" +
			"against the commit's ground truth: task analysis (recall of the touched files in its\n" +
			"seeds), scope (recall, precision, F1, reach), precision (accuracy and macro-F1 of symbol\n" +
			"tiers), meta_plan and part_plan (F1 of files, order, roles and symbol actions carried\n" +
			"out), implement (edits apply, the commit reproduced byte for byte, similarity of the\n" +
			"change) and end to end, as SWE-bench judges: where some test of the commit fails at the\n" +
			"parent and passes at the commit (FAIL_TO_PASS, found once per commit and kept in\n" +
			"raw.eval_commit_judgements), the run succeeds when those pass on its result and no\n" +
			"test that passed broke; where none does, by exact reproduction; where the tests do\n" +
			"not end in time at the parent, the task is undecidable (no success counted). A run\n" +
			"that changed nothing never succeeds. Test runs stop after [testing]\n" +
			"eval_timeout_factor times the commit's own test time (at least\n" +
			"eval_timeout_floor_seconds). Each stage also gets `correct` (0/1), which train-plan reads.\n" +
			"Every run is a logged solve run; scores are in\n" +
			"raw.eval_results (notebooks/eval_scoreboard.sql). --oracle replaces the named stages'\n" +
			"answers by their ground truth: run the same --name with and without it and the report\n" +
			"shows that stage's lift on end-to-end success. --compare NAME prints paired differences\n" +
			"against an earlier eval. A re-run of the same --name and --oracle resumes (tasks done\n" +
			"are not run again). Before any task, each model the runs call (the oracle's stages\n" +
			"aside) must answer a ping. Exit 0 when every task ran, 1 when some could not run, 2 on\n" +
			"usage or configuration errors or a model that does not answer.",
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{Name: "repos", Usage: "only these mined repositories (paths; repeat or comma-separate)"},
			&cli.StringSliceFlag{Name: "holdout-repos", Usage: "held-out repositories (default: [curate] holdout_repos)"},
			&cli.StringFlag{Name: "stages", Usage: "stages to report (default: all): " + strings.Join(reportStages(), ",")},
			&cli.StringFlag{Name: "oracle", Usage: "stages answered by their ground truth: " + strings.Join(eval.OracleStages, ",")},
			&cli.StringFlag{Name: "name", Usage: "the eval's name (default: from the selection, e.g. all-held-out-n20-seed1; not gate-..., the adapter gate's)"},
			&cli.StringFlag{Name: "compare", Usage: "print paired differences against the eval `NAME`"},
			&cli.DurationFlag{Name: "wait", Usage: "wait up to `DURATION` for another process running the same eval; by default exit 1 at once, naming it"},
		}, evalRunFlags()...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			opts, err := parseEval(cmd)
			if err != nil {
				return err
			}
			return a.runEval(ctx, opts)
		},
	}
}

func parseEval(cmd *cli.Command) (evalOptions, error) {
	if cmd.Args().Len() > 0 {
		return evalOptions{}, usage.Errorf("eval takes no arguments (see `cra eval --help`)")
	}
	opts := evalOptions{split: cmd.String("split"), sample: int(cmd.Int("sample")), seed: cmd.Int64("seed"),
		stages: splitList(cmd.String("stages")), oracle: splitList(cmd.String("oracle")), jobs: int(cmd.Int("jobs")),
		name: cmd.String("name"), compare: cmd.String("compare")}
	if err := checkCounts(map[string]int{"sample": opts.sample, "jobs": opts.jobs}); err != nil {
		return opts, err
	}
	if strings.HasPrefix(opts.name, kb.GateEvalPrefix) {
		return opts, usage.Errorf("--name %s: names beginning with %q are the adapter gate's evals (cra adapters eval), which train-plan "+
			"leaves out of its evidence; choose another name", opts.name, kb.GateEvalPrefix)
	}
	for _, s := range opts.stages {
		if !slices.Contains(reportStages(), s) {
			return opts, usage.Errorf("--stages %s: the stages are %s", s, strings.Join(reportStages(), ","))
		}
	}
	var err error
	if opts.wait, err = waitOf(cmd); err != nil {
		return opts, err
	}
	opts.repos = repoPaths(cmd, "repos")
	opts.holdoutRepos = repoPaths(cmd, "holdout-repos")
	return opts, nil
}

// reportStages are the stages --stages can name: the scored ones and the
// end-to-end outcome.
func reportStages() []string {
	return append(slices.Clone(eval.ScoredStages), eval.StageEndToEnd)
}

func (a *app) runEval(ctx context.Context, opts evalOptions) error {
	cfg, err := a.loadConfig(ctx)
	if err != nil {
		return err
	}
	p := a.startProgress()
	rep, err := eval.Run(ctx, eval.Options{Home: a.home.Dir, Config: cfg, Name: opts.name, Oracle: opts.oracle, Stages: opts.stages,
		Jobs: opts.jobs, Compare: opts.compare, Wait: opts.wait, Log: a.log, Progress: p,
		Selection: eval.Selection{Repos: opts.repos, Split: opts.split, Rule: kb.NewSplitRule(cfg.Curate, opts.holdoutRepos),
			Sample: opts.sample, Seed: opts.seed},
		GraphOptions: retrieval.GraphOptions{LanguageOf: lang.LanguageOf,
			Source: walk.SourceFile}})
	a.stopProgress(p)
	if err != nil {
		return err
	}
	return a.batchDone(rep, func() error { return a.printEval(rep) }, nil, rep.Errors, rep.Tasks)
}

// printEval writes the scoreboard: each stage's metrics with intervals,
// then the oracle lift and the comparison when there are.
func (a *app) printEval(rep *eval.Report) error {
	oracle := "none"
	if len(rep.Oracle) > 0 {
		oracle = strings.Join(rep.Oracle, ",")
	}
	fmt.Fprintf(a.stdout, "eval %s (oracle: %s): %s, %d tasks, %d scored, %d could not run, model time %.1fs\n\n",
		rep.Name, oracle, rep.Status, rep.Tasks, rep.Scored, rep.Errors, rep.ModelSeconds)
	if len(rep.JudgedBy) > 0 {
		fmt.Fprintf(a.stdout, "end to end judged by the commit's fail-to-pass tests: %d, by reproducing the commit: %d, undecidable (its tests did not end in time): %d\n\n",
			rep.JudgedBy[eval.JudgedByTests], rep.JudgedBy[eval.JudgedByReproduction], rep.JudgedBy[eval.JudgedUndecidable])
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STAGE\tMETRIC\tN\tSCORE\t95% INTERVAL")
	for _, s := range rep.Scores {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.3f\t[%.3f, %.3f]\n", s.Stage, s.Metric, s.N, s.Mean, s.Interval.Lo, s.Interval.Hi)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if slices.ContainsFunc(rep.Scores, func(s eval.StageScore) bool { return s.Method == stats.MethodTaskBootstrap }) {
		fmt.Fprintf(a.stdout, "(means from fewer than %d repositories: their intervals resample tasks and speak of these repositories only)\n",
			stats.MinClusterRepos)
	}
	for _, c := range []*eval.Comparison{rep.Lift, rep.Compare} {
		if c == nil || len(c.Rows) == 0 {
			continue
		}
		fmt.Fprintf(a.stdout, "\nagainst %s (paired, same tasks):\n", c.Against)
		tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "STAGE\tMETRIC\tN\tTHIS\tTHAT\tDIFF\t95% INTERVAL")
		for _, d := range c.Rows {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.3f\t%.3f\t%+.3f\t[%+.3f, %+.3f]\n", d.Stage, d.Metric, d.N, d.This, d.Other, d.Diff, d.Interval.Lo, d.Interval.Hi)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// evalRunFlags choose and run an eval's tasks, for cra eval and cra
// adapters eval alike: --split, --sample, --seed and --jobs.
func evalRunFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "split", Value: eval.SplitAll, Usage: "validation, holdout or all-held-out"},
		&cli.IntFlag{Name: "sample", Usage: "draw `N` tasks, stratified by repository (0: every held-out task)"},
		&cli.Int64Flag{Name: "seed", Value: 1, Usage: "the sample's seed"},
		&cli.IntFlag{Name: "jobs", Value: 1, Usage: "tasks run at once (bounded by what the model server takes)"},
	}
}
