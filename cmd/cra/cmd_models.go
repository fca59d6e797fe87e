package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/usage"
)

func (a *app) modelsCommand() *cli.Command {
	return &cli.Command{
		Name:  "models",
		Usage: "the models cra calls",
		Commands: []*cli.Command{{
			Name:  "check",
			Usage: "resolve every role, stage override and champion adapter and ask each for a one-token answer",
			Description: "Resolves the coding and reasoning roles, every [models.overrides] stage and every stage\n" +
				"routed to a champion adapter, then sends each distinct provider, URL, model and adapter one\n" +
				"tiny completion, through the route the stage's calls take. Prints what answered and what to\n" +
				"do about what did not (exit 1 if any failed). These pings are not logged.",
			Action: func(ctx context.Context, cmd *cli.Command) error {
				if cmd.Args().Len() > 0 {
					return usage.Errorf("models check takes no arguments")
				}
				return a.runModelsCheck(ctx)
			},
		}},
	}
}

func (a *app) runModelsCheck(ctx context.Context) error {
	cfg, err := a.loadConfig(ctx)
	if err != nil {
		return err
	}
	checks, err := llm.CheckModels(ctx, cfg, llm.PingOptions{})
	if err != nil {
		return err
	}
	failed := 0
	for _, c := range checks {
		if !c.OK {
			failed++
		}
	}
	// An object, not the bare list: a failure adds its error and exit_code
	// to it (jsonout.go), so success and failure read the same way.
	sum := struct {
		Checks []*llm.ModelCheck `json:"checks"`
	}{checks}
	return a.batchDone(sum, func() error { return a.printModelChecks(checks) }, nil, failed, len(checks))
}

func (a *app) printModelChecks(checks []*llm.ModelCheck) error {
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tPROVIDER\tURL\tUSED FOR\tSTATUS")
	for _, c := range checks {
		status := fmt.Sprintf("ok (%.1fs)", c.Seconds)
		if !c.OK {
			status = "failed: " + c.Error
		}
		model := c.Model
		if c.Adapter != "" {
			model += " + adapter " + c.Adapter
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", model, c.Provider, c.BaseURL, strings.Join(c.Uses, ", "), status)
	}
	return tw.Flush()
}
