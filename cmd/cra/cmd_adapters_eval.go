package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/agent/adapters"
	"github.com/cra-dev/cra/agent/eval"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/ingest/walk"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
)

// gateOptions is `cra adapters eval` parsed.
type gateOptions struct {
	adapter string
	split   string
	sample  int
	seed    int64
	jobs    int
}

func (a *app) adaptersEvalCommand() *cli.Command {
	return &cli.Command{
		Name:      "eval",
		Usage:     "the gate: eval the held-out tasks with the current routing and with the adapter, and judge them paired",
		ArgsUsage: "NAME[@VERSION]",
		Description: "Runs cra eval twice on the same held-out tasks (eval's selection): the baseline with the\n" +
			"routing as it is, the candidate with the adapter as the champion of its stages, as two named\n" +
			"evals (gate-NAME-vV-base-HASH and -cand-HASH: a re-run resumes both). The adapter passes when,\n" +
			"paired on the tasks both scored (95 % Newcombe intervals of candidate − baseline), each of its\n" +
			"stages' `correct` improves (lower bound above 0), end-to-end success falls by no more than\n" +
			"[adapters] max_regression (lower bound at least −max_regression, default 0.02), and no other\n" +
			"stage falls significantly (upper bound below 0). The verdict is recorded with the champions it\n" +
			"was judged against (what `cra adapters promote` checks); report.md and report.html go to\n" +
			"<home>/adapters/NAME-vV/gate-ID/. Refuses when a selected task is in the train split of the\n" +
			"adapter's dataset. Exit 0 when the gate passed, 1 when it failed, 2 on usage or preflight\n" +
			"errors, 130 interrupted: `cra adapters eval X && cra adapters promote X` works.",
		Flags: append(evalRunFlags(), storeWaitFlag()),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() != 1 {
				return usage.Errorf("adapters eval needs one adapter, NAME or NAME@VERSION (see `cra adapters list`)")
			}
			opts := gateOptions{adapter: cmd.Args().First(), split: cmd.String("split"), sample: int(cmd.Int("sample")),
				seed: cmd.Int64("seed"), jobs: int(cmd.Int("jobs"))}
			if err := checkCounts(map[string]int{"sample": opts.sample, "jobs": opts.jobs}); err != nil {
				return err
			}
			return a.runAdaptersEval(ctx, cmd, opts)
		},
	}
}

func (a *app) runAdaptersEval(ctx context.Context, cmd *cli.Command, opts gateOptions) error {
	cfg, err := a.loadConfig(ctx)
	if err != nil {
		return err
	}
	st, err := a.adapterStore(cmd, true)
	if err != nil {
		return err
	}
	p := a.startProgress()
	res, err := adapters.Gate(ctx, adapters.GateOptions{Store: st, Adapter: opts.adapter, Eval: eval.Options{
		Config: cfg, Jobs: opts.jobs, Log: a.log, Progress: p,
		Selection:    eval.Selection{Split: opts.split, Rule: kb.NewSplitRule(cfg.Curate, nil), Sample: opts.sample, Seed: opts.seed},
		GraphOptions: retrieval.GraphOptions{LanguageOf: lang.LanguageOf, Source: walk.SourceFile}}})
	a.stopProgress(p)
	if res == nil {
		return err
	}
	if a.json {
		return errors.Join(a.writeJSON(res), err)
	}
	return errors.Join(a.printGate(res), err)
}

// printGate writes the verdict per condition and where the report is.
func (a *app) printGate(res *adapters.GateResult) error {
	g := res.Gate
	verdict := "FAILED"
	if g.Passed {
		verdict = "PASSED"
	}
	fmt.Fprintf(a.stdout, "gate %d: %s@%d for %s %s on %d held-out tasks (evals %s, %s)\n", g.ID, g.Adapter, g.Version,
		strings.Join(g.Stages, ", "), verdict, res.Tasks, g.BaselineEval, g.CandidateEval)
	if res.Lineage == "" {
		fmt.Fprintln(a.stdout, "no lineage: the adapter was registered without --dataset, so nothing shows it was not trained on these tasks")
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.ToUpper(strings.Join(adapters.ConditionHead, "\t")))
	for _, c := range g.Conditions {
		fmt.Fprintln(tw, strings.Join(adapters.ConditionRow(c), "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "report: %s/report.md, report.html\n", g.ReportDir)
	if g.Passed {
		fmt.Fprintf(a.stdout, "route its stages to it with `cra adapters promote %s@%d`\n", g.Adapter, g.Version)
	}
	return nil
}
