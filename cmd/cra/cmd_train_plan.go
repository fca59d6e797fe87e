package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/analysis"
	"github.com/cra-dev/cra/internal/stats"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
)

// trainPlanOptions is `cra train-plan` parsed.
type trainPlanOptions struct {
	since time.Time
	repos []string
	evals []string
	out   string
	noLLM bool
}

func (a *app) trainPlanCommand() *cli.Command {
	return &cli.Command{
		Name:  "train-plan",
		Usage: "find which pipeline stage fails, with statistics, and write a training plan and a report",
		Description: "Reads the raw store: eval runs scored stage by stage against ground truth (`cra eval`),\n" +
			"oracle evals that replace a stage by ground truth, and logged `cra solve` runs (weaker evidence:\n" +
			"no ground truth). Per stage it computes the share right (Wilson interval) and its metrics (mean of\n" +
			fmt.Sprintf("repository means; bootstrap over repositories, over tasks with fewer than %d), the association\n", stats.MinClusterRepos) +
			"of a wrong output with end-to-end failure (odds ratio, Fisher's exact p, Holm-adjusted), a logistic\n" +
			"regression of failure on every stage when there are enough runs, first-error attribution (each\n" +
			"failed run charged to its earliest wrong stage) and the oracle lift (paired difference). The\n" +
			"target is the largest oracle lift whose\n" +
			"interval excludes zero; else the largest blame share among stages significantly associated with\n" +
			"failure; else none, with the number of eval tasks that would show the effect.\n\n" +
			"Writes, in --out (default exports/train-plan-<time> in the home): plan.json (the training plan\n" +
			"`cra curate-data --training-plan` reads; schema in analysis/plan.schema.json) and a training_plans\n" +
			"row when a stage is chosen; report.md and report.html (one self-contained page with SVG charts).\n" +
			"Prints the stages ranked; --json prints plan.json. The reasoning model adds a narrative under its\n" +
			"own heading, changing no figure (--no-llm: computed figures only). With no eval results it writes\n" +
			"nothing and says to run `cra eval` (exit 0).\n\n" +
			"Evidence is separated by adapter: a stage's figures pool only the tasks its current route (its\n" +
			"champion, else the base model) answered, end-to-end figures only the tasks every current route\n" +
			"answered; the report lists each stage's champion, what was left out, and the latest gate of each\n" +
			"adapter version. The adapter gate's own evals (gate-...) are read only when --eval names them.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "since", Usage: "only runs started on or after DATE (YYYY-MM-DD or RFC 3339)"},
			&cli.StringSliceFlag{Name: "repos", Usage: "only these repositories (paths; repeat or comma-separate)"},
			&cli.StringSliceFlag{Name: "eval", Usage: "only eval runs of these names (repeat or comma-separate); solve runs are then left out, the adapter gate's evals read"},
			&cli.StringFlag{Name: "out", Usage: "write into `DIR` (new or empty); default exports/train-plan-<time> in the home"},
			&cli.BoolFlag{Name: "no-llm", Usage: "computed figures only: no narrative by the reasoning model"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			opts, err := parseTrainPlan(cmd)
			if err != nil {
				return err
			}
			return a.runTrainPlan(ctx, opts)
		},
	}
}

func parseTrainPlan(cmd *cli.Command) (trainPlanOptions, error) {
	if cmd.Args().Len() > 0 {
		return trainPlanOptions{}, usage.Errorf("train-plan takes no arguments (see `cra train-plan --help`)")
	}
	since, err := parseSince(cmd.String("since"))
	if err != nil {
		return trainPlanOptions{}, err
	}
	opts := trainPlanOptions{since: since, evals: splitAll(cmd.StringSlice("eval")), out: cmd.String("out"), noLLM: cmd.Bool("no-llm")}
	opts.repos = repoPaths(cmd, "repos")
	return opts, nil
}

func (a *app) runTrainPlan(ctx context.Context, opts trainPlanOptions) error {
	cfg, err := a.loadConfig(ctx)
	if err != nil {
		return err
	}
	res, err := analysis.Run(ctx, analysis.Options{Dir: a.home.Dir, Filter: kb.LogFilter{Since: opts.since, Repos: opts.repos, Evals: opts.evals},
		Out: opts.out, NoLLM: opts.noLLM, Config: cfg, Routes: cfg.Models.Routed(), Log: a.log})
	if err != nil {
		return err
	}
	if a.json {
		if res.Plan != nil {
			return a.writeJSON(res.Plan)
		}
		return a.writeJSON(res)
	}
	return a.printTrainPlan(res)
}

func (a *app) printTrainPlan(res *analysis.Result) error {
	d := res.Decision
	switch d.Status {
	case analysis.StatusNotEnoughData:
		if res.Evidence == nil {
			_, err := fmt.Fprintln(a.stdout, d.Reason)
			return err
		}
		fmt.Fprintln(a.stdout, d.Reason)
	case analysis.StatusPlan:
		fmt.Fprintf(a.stdout, "train %s (%s)\n%s\n", d.Target, strings.ReplaceAll(d.Rule, "_", " "), d.Reason)
	default:
		fmt.Fprintln(a.stdout, d.Reason)
	}
	fmt.Fprintln(a.stdout)
	head, rows := analysis.RankedTable(res.Evidence, d)
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.ToUpper(strings.Join(head, "\t")))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if u := res.Evidence.Unattributed; u.N > 0 {
		fmt.Fprintf(a.stdout, "unattributed: %d of %d failed runs had no stage wrong against ground truth\n", u.K, u.N)
	}
	for _, line := range analysis.AdapterLines(res.Evidence.Adapters) {
		fmt.Fprintln(a.stdout, line)
	}
	fmt.Fprintln(a.stdout)
	for _, f := range res.Files {
		fmt.Fprintf(a.stdout, "wrote %s\n", f)
	}
	if res.Plan != nil {
		fmt.Fprintf(a.stdout, "training plan %d recorded; next: cra curate-data --training-plan %s/%s --name %s\n",
			res.PlanID, res.OutDir, analysis.PlanFile, d.Target)
	}
	return nil
}
