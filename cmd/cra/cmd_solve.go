package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/agent/orchestrator"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/ingest/walk"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb/schema"
)

func (a *app) solveCommand() *cli.Command {
	return &cli.Command{
		Name:      "solve",
		Usage:     "make a change: plan it, implement it step by step in a worktree, test every step",
		ArgsUsage: `"<task>"`,
		Description: "Works in a git worktree of the repository at --rev (default HEAD) under the home: your\n" +
			"checkout is never touched. A meta plan splits the task into parts; each part's plan into\n" +
			"steps; each step is implemented by the coding model, applied, and tested with the\n" +
			"repository's test command ([testing] test_command, or a [[testing.repo]] one): a failing\n" +
			"step gets a retry with the failure, then an adjustment pass revises the steps left. Each\n" +
			"passing step is a commit on the branch cra/<task id>; the final diff is in\n" +
			"raw.task_runs.final_diff, and --apply brings it into your working tree (refused, naming\n" +
			"the conflicting paths, when it does not apply cleanly). --plan FILE follows a plan from\n" +
			"`cra plan --output` in one implement pass; --meta-plan FILE skips the meta plan. A killed\n" +
			"run continues with --resume TASK_ID (said on stderr as the run starts). Every pass, call,\n" +
			"attempt and test run is in the raw store:\n" +
			"`cra sql \"select * from solve_trace where run_task_id = 'TASK_ID'\"`.\n" +
			"Exit 0 when every step passed, 1 when some failed (partial) or none did, 2 on usage,\n" +
			"configuration or preflight errors (e.g. no test command, a model that does not answer\n" +
			"its ping).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "repo", Value: ".", Usage: "the indexed repository"},
			&cli.StringFlag{Name: "rev", Usage: "work from `REV` (default HEAD)"},
			&cli.StringFlag{Name: "plan", Usage: "follow the plan in `FILE` (a PlanArtifact, from cra plan --output): one implement pass"},
			&cli.StringFlag{Name: "meta-plan", Usage: "use the meta plan in `FILE` instead of asking for one"},
			&cli.BoolFlag{Name: "apply", Usage: "apply the final diff to your working tree at the end"},
			&cli.StringFlag{Name: "resume", Usage: "continue the killed run `TASK_ID` where it stopped"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			opts := orchestrator.Options{Home: a.home.Dir, Repo: cmd.String("repo"), Rev: cmd.String("rev"), Resume: cmd.String("resume"),
				Apply: cmd.Bool("apply"), Log: a.log}
			switch {
			case opts.Resume != "" && cmd.Args().Len() > 0:
				return usage.Errorf("--resume continues a run with its own task: give no task")
			case opts.Resume == "" && (cmd.Args().Len() != 1 || strings.TrimSpace(cmd.Args().First()) == ""):
				return usage.Errorf(`solve needs one task, quoted: cra solve "Let Store.get return a default"`)
			case cmd.String("plan") != "" && cmd.String("meta-plan") != "":
				return usage.Errorf("--plan and --meta-plan exclude each other: --plan skips every plan pass, --meta-plan only the first")
			}
			opts.Task = cmd.Args().First()
			if f := cmd.String("plan"); f != "" {
				var p schema.PlanArtifact
				if err := readPlanFile(f, &p, prompt.ParsePlan); err != nil {
					return err
				}
				opts.Plan = &p
			}
			if f := cmd.String("meta-plan"); f != "" {
				var m schema.MetaPlan
				if err := readPlanFile(f, &m, prompt.ParseMetaPlan); err != nil {
					return err
				}
				opts.MetaPlan = &m
			}
			return a.runSolve(ctx, opts)
		},
	}
}

// readPlanFile reads a plan file with the parser a model's answer goes
// through, so a hand-written plan is checked the same way.
func readPlanFile[T any](path string, dst *T, parse func(string) (T, error)) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return usage.Errorf("%v", err)
	}
	v, err := parse(string(b))
	if err != nil {
		return usage.Errorf("%s: %v", path, err)
	}
	*dst = v
	return nil
}

func (a *app) runSolve(ctx context.Context, opts orchestrator.Options) error {
	cfg, err := a.loadConfig(ctx)
	if err != nil {
		return err
	}
	opts.Config = cfg
	opts.GraphOptions = retrieval.GraphOptions{LanguageOf: lang.LanguageOf,
		Source: walk.SourceFile}
	opts.Started = a.solveStarted
	out, err := orchestrator.Solve(ctx, opts)
	if out == nil {
		return err
	}
	var outErr error
	if a.json {
		outErr = a.writeJSON(out)
	} else {
		a.printSolve(out)
	}
	switch {
	case err != nil:
		return err
	case outErr != nil:
		return outErr
	case out.Status != orchestrator.StatusComplete:
		return &partialError{failed: failedSteps(out), total: len(out.Steps), why: solveProblems(out)}
	}
	return nil
}

// solveProblems says why a run did not complete when no step says it: the
// passes that failed before there were steps (a meta plan that stayed
// unusable).
func solveProblems(out *orchestrator.Outcome) string {
	if len(out.Steps) > 0 || len(out.Problems) == 0 {
		return ""
	}
	return fmt.Sprintf("solve %s %s: %s", out.TaskID, out.Status, strings.Join(out.Problems, "; "))
}

// solveStarted says on stderr, as soon as the run can be resumed, which
// task it is: a run killed before its summary is resumed without digging
// in sessions/.
func (a *app) solveStarted(taskID string, resumed bool) {
	what := "task"
	if resumed {
		what = "resuming task"
	}
	fmt.Fprintf(a.logOut, "cra solve: %s %s (resume with: cra solve --resume %s)\n", what, taskID, taskID)
}

func failedSteps(out *orchestrator.Outcome) int {
	n := 0
	for _, s := range out.Steps {
		if !s.Passed {
			n++
		}
	}
	return n
}

// printSolve writes the human summary of a run.
func (a *app) printSolve(out *orchestrator.Outcome) {
	w := a.stdout
	fmt.Fprintf(w, "solve %s: %s\n", out.TaskID, out.Status)
	fmt.Fprintf(w, "parts %d of %d done, steps %d of %d passed\n", out.PartsDone, out.Parts, len(out.Steps)-failedSteps(out), len(out.Steps))
	for _, s := range out.Steps {
		mark := "ok  "
		if !s.Passed {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "  %s %s/%s (%d attempt(s)): %s\n", mark, s.Part, s.Step, s.Attempts, firstLineOf(s.Description))
		if len(s.FailingTests) > 0 {
			fmt.Fprintf(w, "       failing: %s\n", strings.Join(s.FailingTests, ", "))
		}
		if s.Error != "" {
			fmt.Fprintf(w, "       %s\n", s.Error)
		}
	}
	for _, p := range out.Problems {
		fmt.Fprintf(w, "  note: %s\n", p)
	}
	if len(out.Files) > 0 {
		fmt.Fprintf(w, "files changed: %s\n", strings.Join(out.Files, ", "))
	}
	fmt.Fprintf(w, "branch: %s\n", out.Branch)
	if out.Applied {
		fmt.Fprintln(w, "applied to your working tree")
	}
	fmt.Fprintf(w, "trace: cra sql \"select * from solve_trace where run_task_id = '%s'\" (or notebooks/runs_trace.sql)\n", out.TaskID)
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
