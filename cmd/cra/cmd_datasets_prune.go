package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/curate"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
)

// pruneOptions is `cra datasets prune` parsed.
type pruneOptions struct {
	name string
	keep int
}

func (a *app) datasetsPruneCommand() *cli.Command {
	return &cli.Command{
		Name:      "prune",
		Usage:     "delete the older versions of a dataset, keeping the newest K",
		ArgsUsage: "NAME",
		Description: "Deletes every version of NAME but the newest --keep (their examples and records).\n" +
			"Exports already written are not touched. Run `cra compact` afterwards to give the\n" +
			"space back to the file system.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "keep", Value: 1, Usage: "versions to keep, newest first (at least 1)"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			opts, err := parsePrune(cmd)
			if err != nil {
				return err
			}
			return a.runDatasetsPrune(ctx, opts)
		},
	}
}

func parsePrune(cmd *cli.Command) (pruneOptions, error) {
	ref, err := datasetRef(cmd)
	if err != nil {
		return pruneOptions{}, err
	}
	if ref.Version != 0 {
		return pruneOptions{}, usage.Errorf("datasets prune takes a dataset name, without @VERSION (use --keep)")
	}
	if cmd.Int("keep") < 1 {
		return pruneOptions{}, usage.Errorf("--keep must be at least 1")
	}
	return pruneOptions{name: ref.Name, keep: cmd.Int("keep")}, nil
}

func (a *app) runDatasetsPrune(ctx context.Context, opts pruneOptions) error {
	// The dataset's lock: no curate-data adds a version meanwhile.
	lock, err := kb.LockInput(ctx, a.home.Dir, curate.DatasetLock, opts.name, "cra datasets prune "+opts.name, 0)
	if err != nil {
		return err
	}
	defer lock.Release() //nolint:errcheck // dropped at exit anyway
	if err := a.withRaw(ctx, func(q kb.Querier) error {
		_, err := kb.ResolveDataset(ctx, q, kb.DatasetRef{Name: opts.name})
		return err
	}); err != nil {
		return err
	}
	var gone []int
	err = kb.WithWriter(ctx, a.home.Dir, kb.Raw, kb.Options{Command: "cra datasets prune", Wait: kb.BatchWait}, func(w kb.Writer) (err error) {
		gone, err = kb.PruneDataset(ctx, w, opts.name, opts.keep)
		return err
	})
	if err != nil {
		return err
	}
	if gone == nil {
		gone = []int{}
	}
	if a.json {
		return a.writeJSON(map[string]any{"dataset": opts.name, "kept": opts.keep, "deleted_versions": gone})
	}
	fmt.Fprintf(a.stdout, "%s: deleted %d versions %v, kept the newest %d\n", opts.name, len(gone), gone, opts.keep)
	return nil
}
