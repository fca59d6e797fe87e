package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/agent/execute"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/ingest/walk"
	"github.com/cra-dev/cra/internal/usage"
)

// planOptions is `cra plan` parsed.
type planOptions struct {
	task   string
	repo   string
	rev    string
	output string
}

func (a *app) planCommand() *cli.Command {
	return &cli.Command{
		Name:      "plan",
		Usage:     "plan a change to an indexed repository: which files and symbols change, in which order, and why",
		ArgsUsage: `"<task>"`,
		Description: "Runs the retrieval pipeline on the repository's knowledge base — the model's task\n" +
			"analysis merged with the files and symbols the task names, tiered expansion (named files,\n" +
			"their imports and importers, co-change neighbours, files sharing the task's words), the\n" +
			"model's choice of files and of symbol detail — then the plan pass. Prints a summary and\n" +
			"writes the plan (a PlanArtifact) to --output, or prints it with --json. Every model call,\n" +
			"candidate and symbol decision of the run is in the raw store under one task id\n" +
			"(notebooks/runs_trace.sql). Exit 1 when the model's answers stayed unusable after a\n" +
			"second ask; 2 when something is missing (config, index), the index is not at the\n" +
			"revision planned (--rev, default HEAD) or a model does not answer the preflight's\n" +
			"ping, with the next step.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "repo", Value: ".", Usage: "the indexed repository"},
			&cli.StringFlag{Name: "rev", Usage: "plan at `REV` (a commit, branch or tag), which must be the revision indexed (`cra index --rev REV`); default: HEAD, which the index must then be at"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the plan JSON to `FILE`"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() != 1 || strings.TrimSpace(cmd.Args().First()) == "" {
				return usage.Errorf(`plan needs one task, quoted: cra plan "Let Store.get return a default"`)
			}
			return a.runPlan(ctx, planOptions{task: cmd.Args().First(), repo: cmd.String("repo"), rev: cmd.String("rev"), output: cmd.String("output")})
		},
	}
}

func (a *app) runPlan(ctx context.Context, opts planOptions) error {
	cfg, err := a.loadConfig(ctx)
	if err != nil {
		return err
	}
	run, err := execute.RunPlan(ctx, execute.PlanOptions{Dir: a.home.Dir, Repo: opts.repo, Rev: opts.rev, Task: opts.task, Config: cfg, Log: a.log,
		GraphOptions: retrieval.GraphOptions{LanguageOf: lang.LanguageOf,
			Source: walk.SourceFile}})
	if err != nil {
		if run != nil {
			return fmt.Errorf("%w (task %s: see notebooks/runs_trace.sql)", err, run.TaskID)
		}
		return err
	}
	if opts.output != "" {
		b, err := json.MarshalIndent(run.Plan, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(opts.output, append(b, '\n'), 0o644); err != nil {
			return usage.Errorf("--output %s: %v", opts.output, err)
		}
	}
	if a.json {
		return a.writeJSON(run)
	}
	p := run.Plan
	fmt.Fprintf(a.stdout, "plan %s\n%s\n\n", run.TaskID, p.TaskSummary)
	for _, f := range p.AffectedFiles {
		fmt.Fprintf(a.stdout, "%s (%s)\n", f.Path, f.Role)
		for _, c := range f.Changes {
			fmt.Fprintf(a.stdout, "  %s %s: %s\n", c.Action, c.Symbol, c.Description)
		}
	}
	fmt.Fprintf(a.stdout, "\norder: %s\n", strings.Join(p.ExecutionOrder, " → "))
	if p.Rationale != "" {
		fmt.Fprintf(a.stdout, "why: %s\n", p.Rationale)
	}
	if opts.output != "" {
		fmt.Fprintf(a.stdout, "written to %s\n", opts.output)
	}
	return nil
}
