package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/agent/eval"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/ingest/walk"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// askEvalOptions is `cra ask --eval` parsed.
type askEvalOptions struct {
	repos, holdoutRepos []string
	sample              int
	seed                int64
	oracleClassify      bool
	name                string
	wait                time.Duration
}

// askEvalDescription is cra ask --help's paragraph on --eval.
const askEvalDescription = "\n\n--eval asks questions with known answers instead, generated from the indexed repositories\n" +
	"(--repos, default all): diagnostic ones from the code index's error strings (the raising\n" +
	"function expected), exploratory ones from call chains of 2-3 hops (the chain's functions),\n" +
	"conceptual ones from module docstrings and enriched descriptions (the file), and bug\n" +
	"reports from the messages of held-out bug fixes bootstrap mined (the source files touched), each\n" +
	"asked over a knowledge base of the fix's parent. Scores per question go to\n" +
	"raw.eval_results under an eval_runs row (stages ask_classify, ask_retrieval, ask_answer;\n" +
	"questions and answers in raw.ask_questions, notebooks/ask_eval.sql): classification\n" +
	"accuracy, file recall@5 of the retrieval before any model choice and of the files the\n" +
	"answer cites, symbol hit, answer rate, reported per kind. --oracle classify gives each\n" +
	"question its known mode. A re-run of the same --name and --oracle resumes (questions\n" +
	"asked are not asked again). Exit 0 when every question ran, 1 when some could not (a\n" +
	"model failure), 2 on usage errors or a model that does not answer its ping."

// askEvalFlags are cra ask's flags for --eval.
func askEvalFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "eval", Usage: "ask generated questions with known answers and score them (see the description)"},
		&cli.StringSliceFlag{Name: "repos", Usage: "with --eval: only these indexed repositories (paths; repeat or comma-separate)"},
		&cli.StringSliceFlag{Name: "holdout-repos", Usage: "with --eval: held-out repositories for bug reports (default: [curate] holdout_repos)"},
		&cli.IntFlag{Name: "sample", Usage: "with --eval: draw `N` questions of each kind (diagnostic, exploratory, conceptual, bugreport); 0: every one"},
		&cli.Int64Flag{Name: "seed", Value: 1, Usage: "with --eval: the sample's seed"},
		&cli.StringFlag{Name: "oracle", Usage: "with --eval: classify, to give each question its known mode"},
		&cli.StringFlag{Name: "name", Usage: "with --eval: the eval's name (default: ask-n<N>-seed<S>)"},
		&cli.DurationFlag{Name: "wait", Usage: "with --eval: wait up to `DURATION` for another process running the same eval"},
	}
}

func parseAskEval(cmd *cli.Command) (askEvalOptions, error) {
	if cmd.Args().Len() > 0 {
		return askEvalOptions{}, usage.Errorf("ask --eval takes no question: it generates its own (see `cra ask --help`)")
	}
	opts := askEvalOptions{sample: int(cmd.Int("sample")), seed: cmd.Int64("seed"), name: cmd.String("name")}
	if err := checkCounts(map[string]int{"sample": opts.sample}); err != nil {
		return opts, err
	}
	switch o := cmd.String("oracle"); o {
	case "":
	case "classify", schema.StageAskClassify:
		opts.oracleClassify = true
	default:
		return opts, usage.Errorf("--oracle %s: cra ask --eval can substitute only the classification (--oracle classify)", o)
	}
	if strings.HasPrefix(opts.name, kb.GateEvalPrefix) {
		return opts, usage.Errorf("--name %s: names beginning with %q are the adapter gate's evals; choose another name", opts.name, kb.GateEvalPrefix)
	}
	var err error
	if opts.wait, err = waitOf(cmd); err != nil {
		return opts, err
	}
	opts.repos = repoPaths(cmd, "repos")
	opts.holdoutRepos = repoPaths(cmd, "holdout-repos")
	return opts, nil
}

// askEvalOnly are the flags that mean nothing without --eval.
var askEvalOnly = []string{"repos", "holdout-repos", "sample", "seed", "oracle", "name", "wait"}

// checkNotEval refuses --eval's flags on a plain question.
func checkNotEval(cmd *cli.Command) error {
	for _, f := range askEvalOnly {
		if cmd.IsSet(f) {
			return usage.Errorf("--%s goes with --eval", f)
		}
	}
	return nil
}

func (a *app) runAskEval(ctx context.Context, cmd *cli.Command) error {
	opts, err := parseAskEval(cmd)
	if err != nil {
		return err
	}
	cfg, err := a.loadConfig(ctx)
	if err != nil {
		return err
	}
	p := a.startProgress()
	rep, err := eval.RunAsk(ctx, eval.AskOptions{Home: a.home.Dir, Config: cfg, Name: opts.name, OracleClassify: opts.oracleClassify,
		Repos: opts.repos, Rule: kb.NewSplitRule(cfg.Curate, opts.holdoutRepos), Sample: opts.sample, Seed: opts.seed, Wait: opts.wait,
		GraphOptions: retrieval.GraphOptions{LanguageOf: lang.LanguageOf, Source: walk.SourceFile}, Log: a.log, Progress: p})
	a.stopProgress(p)
	if err != nil {
		return err
	}
	return a.batchDone(rep, func() error { return a.printAskEval(rep) }, nil, rep.Errors, rep.Questions)
}

// printAskEval writes the report: one line per kind of question.
func (a *app) printAskEval(rep *eval.AskReport) error {
	oracle := "none"
	if len(rep.Oracle) > 0 {
		oracle = strings.Join(rep.Oracle, ",")
	}
	fmt.Fprintf(a.stdout, "ask eval %s (oracle: %s): %s, %d questions, %d scored, %d could not run\n\n",
		rep.Name, oracle, rep.Status, rep.Questions, rep.Scored, rep.Errors)
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tMODE\tQUESTIONS\tCLASSIFIED\tRETRIEVAL R@5\tANSWER R@5\tSYMBOL HIT\tANSWERED")
	for _, k := range rep.Kinds {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", k.Kind, k.Mode, k.Questions, mean(k.Classification),
			mean(k.RetrievalRecall), mean(k.AnswerRecall), mean(k.SymbolHit), mean(k.Answered))
	}
	return tw.Flush()
}

// mean is a report cell: the mean, or "-" when no question has it.
func mean(m kb.AskMean) string {
	if m.N == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", m.Mean)
}
