package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/agent/ask"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/ingest/walk"
	"github.com/cra-dev/cra/internal/usage"
)

func (a *app) askCommand() *cli.Command {
	return &cli.Command{
		Name:      "ask",
		Usage:     "answer a question about an indexed repository, citing its sources (file and lines)",
		ArgsUsage: `"<question>"`,
		Description: "Classifies the question (one model call, stage ask_classify; a keyword rule when the\n" +
			"answers stay unusable) and retrieves what fits it from the code index: for a failure\n" +
			"(diagnostic), the error sites and their callers walked backward, mutating callers first;\n" +
			"for a flow (exploratory), entry points and their callees walked forward; for structure\n" +
			"(analytical), imports, hotspots and bug-fix history; for \"what does X do\" (conceptual),\n" +
			"descriptions and docstrings ranked by words and symbol names. The answer pass (stage\n" +
			"ask_answer) cites its sources and says what it still misses; each gap is looked up (a file\n" +
			"or symbol it names, else the mode's search) and the question asked again, up to\n" +
			"[ask] max_passes, within [ask]'s budgets. Every call, source and gap is in the raw store\n" +
			"under one task id (notebooks/ask_trace.sql). Exit 1 when the model failed (answers\n" +
			"unusable twice, a server down); 2 when something is missing (config, index), the index is\n" +
			"not at --rev, or a model does not answer the preflight's ping." + askEvalDescription,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "repo", Value: ".", Usage: "the indexed repository"},
			&cli.StringFlag{Name: "rev", Usage: "ask about `REV`, which must be the revision indexed; default: HEAD, which the index must then be at"},
		}, askEvalFlags()...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Bool("eval") {
				return a.runAskEval(ctx, cmd)
			}
			if err := checkNotEval(cmd); err != nil {
				return err
			}
			if cmd.Args().Len() != 1 || strings.TrimSpace(cmd.Args().First()) == "" {
				return usage.Errorf(`ask needs one question, quoted: cra ask "Why do I get UsageError: Missing parameter?" --repo ~/clones/click`)
			}
			return a.runAsk(ctx, cmd.Args().First(), cmd.String("repo"), cmd.String("rev"))
		},
	}
}

func (a *app) runAsk(ctx context.Context, question, repo, rev string) error {
	cfg, err := a.loadConfig(ctx)
	if err != nil {
		return err
	}
	res, err := ask.Run(ctx, ask.Options{Dir: a.home.Dir, Repo: repo, Rev: rev, Question: question, Config: cfg, Log: a.log,
		GraphOptions: retrieval.GraphOptions{LanguageOf: lang.LanguageOf, Source: walk.SourceFile}})
	if err != nil {
		if res != nil {
			return fmt.Errorf("%w (task %s: see notebooks/ask_trace.sql)", err, res.TaskID)
		}
		return err
	}
	if a.json {
		return a.writeJSON(res)
	}
	c := res.Classification
	fmt.Fprintf(a.stdout, "ask %s: %s question (by %s: %s)\n\n%s\n", res.TaskID, c.Mode, c.By, c.Reasoning, res.Answer)
	if len(res.Cited) > 0 {
		fmt.Fprintln(a.stdout, "\nsources:")
		for _, s := range res.Cited {
			fmt.Fprintf(a.stdout, "  %s", s.Cite())
			if s.Symbol != "" {
				fmt.Fprintf(a.stdout, " %s", s.Symbol)
			}
			if s.Kind == "" {
				fmt.Fprintf(a.stdout, " (%s)", s.Why)
			}
			fmt.Fprintln(a.stdout)
		}
	}
	fmt.Fprintf(a.stdout, "\n%d pass(es), stopped: %s; context %d of %d tokens\n", res.Passes, strings.ReplaceAll(res.Stop, "_", " "), res.Budget.Total, res.Budget.Limit)
	if len(res.Unresolved) > 0 {
		fmt.Fprintln(a.stdout, "not found:")
		for _, g := range res.Unresolved {
			fmt.Fprintf(a.stdout, "  - %s\n", g)
		}
	}
	return nil
}
