package main

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"text/tabwriter"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
)

func (a *app) datasetsCommand() *cli.Command {
	return &cli.Command{
		Name:  "datasets",
		Usage: "list, show, export, inspect and prune training datasets",
		Description: "Datasets are built by `cra curate-data` into raw.training_examples. Each run under a\n" +
			"name adds a version and keeps the earlier ones: NAME means the latest version, NAME@N\n" +
			"pins one (show, export), so a training script can export the same rows again.\n" +
			"Export writes one directory that Hugging Face datasets, TRL, axolotl or OpenAI's\n" +
			"fine-tuning read as it is (--layout trl, axolotl or openai):\n" +
			"<stage>/<kind>/<split>-NNNNN-of-NNNNN.parquet (zstd; messages as list<struct<role, content>>)\n" +
			"or .jsonl, a manifest.json (name, version, layout, counts, kind and sha256 per file,\n" +
			"selection criteria, cra version) and a README.md dataset card declaring one config per\n" +
			"stage and kind (sft, preference, kto).",
		Commands: []*cli.Command{
			a.datasetsListCommand(),
			a.datasetsShowCommand(),
			a.datasetsExportCommand(),
			a.datasetsInspectCommand(),
			a.datasetsPruneCommand(),
		},
	}
}

func (a *app) datasetsListCommand() *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "every version of every dataset, with its examples per stage and split",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() > 0 {
				return usage.Errorf("datasets list takes no arguments")
			}
			return a.runDatasetsList(ctx)
		},
	}
}

func (a *app) runDatasetsList(ctx context.Context) error {
	var all []kb.DatasetInfo
	err := a.withRaw(ctx, func(q kb.Querier) (err error) {
		all, err = kb.DatasetVersions(ctx, q, "")
		return err
	})
	if err != nil {
		return err
	}
	if a.json {
		return a.writeJSON(all)
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVERSION\tSTAGE\tTRAIN\tVALIDATION\tCREATED")
	for _, d := range all {
		for _, st := range sortedStages(d.Examples) {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%d\t%s\n", d.Name, d.Version, st, d.Examples[st][kb.SplitTrain], d.Examples[st][kb.SplitValidation], d.Created)
		}
	}
	return tw.Flush()
}

// withRaw runs fn on the raw store opened read-only; a dataset that does
// not exist is a usage error.
func (a *app) withRaw(ctx context.Context, fn func(kb.Querier) error) error {
	raw, err := kb.Open(ctx, a.home.Dir, kb.Raw, kb.Options{Command: "cra datasets"})
	if err != nil {
		return err
	}
	defer raw.Close()
	err = fn(raw.DB)
	if errors.Is(err, kb.ErrNotFound) {
		return usage.Errorf("%v", err)
	}
	return err
}

// datasetRef reads the NAME[@VERSION] argument of a datasets subcommand.
func datasetRef(cmd *cli.Command) (kb.DatasetRef, error) {
	if cmd.Args().Len() != 1 {
		return kb.DatasetRef{}, usage.Errorf("%s needs one dataset, NAME or NAME@VERSION (see `cra datasets list`)", cmd.FullName())
	}
	ref, err := kb.ParseDatasetRef(cmd.Args().First())
	if err != nil {
		return ref, usage.Errorf("%v", err)
	}
	return ref, nil
}

func sortedStages[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
