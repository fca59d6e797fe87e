package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/datasets"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
)

// exportOptions is `cra datasets export` parsed.
type exportOptions struct {
	ref    kb.DatasetRef
	format string
	layout string
	kinds  []string // none: every kind
	out    string   // "" for the default under the home's exports/
}

func (a *app) datasetsExportCommand() *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write a dataset version as Parquet or JSON Lines shards, in the layout a trainer reads, with a manifest and a dataset card",
		ArgsUsage: "NAME[@VERSION]",
		Description: "Files are <stage>/<kind>/<split>-NNNNN-of-NNNNN.<ext>, one Hugging Face config per stage and kind\n" +
			"(kinds: sft, preference, kto). --layout names the fields each kind's rows get:\n" +
			"  trl      TRL's conversational formats: sft {prompt, completion} (loss on the answer only);\n" +
			"           preference {prompt, chosen, rejected}; kto {prompt, completion, label (boolean)}; every row\n" +
			"           with chat_template_kwargs {enable_thinking: models.think}: SFTTrainer, DPOTrainer, KTOTrainer\n" +
			"  openai   OpenAI fine-tuning: sft {messages}; preference {input: {messages}, preferred_output,\n" +
			"           non_preferred_output} (DPO). No kto format: a dataset with kto rows needs --kinds sft,preference.\n" +
			"           One file per split (shards past the size keep 10 rows or more); a split of fewer than 10\n" +
			"           rows, which OpenAI refuses, is written with a warning\n" +
			"  axolotl  sft {messages} (type chat_template); preference {messages, chosen, rejected} with one message\n" +
			"           each (chat_template.default); kto {system, prompt, completion} as text and label (boolean)\n" +
			"           (chatml.ultra, llama3.ultra); a kto prompt must be one system and one user turn\n" +
			"Every row also carries cra_id, cra_dataset, cra_stage, cra_source, cra_split, cra_repo, cra_commit,\n" +
			"cra_label, cra_signal, cra_evidence, cra_prompt_tokens, cra_completion_tokens and cra_created_at,\n" +
			"which no trainer reads. The dataset card (README.md) declares each config's features and shows how\n" +
			"to load each config with the layout's trainer.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: datasets.FormatParquet, Usage: "parquet or jsonl"},
			&cli.StringFlag{Name: "layout", Value: datasets.LayoutTRL, Usage: "trl, openai or axolotl: the fields each kind's rows get (see above)"},
			&cli.StringSliceFlag{Name: "kinds", Usage: "export only these kinds, comma-separated: sft, preference, kto (default: all); the manifest counts those left out"},
			&cli.StringFlag{Name: "out", Usage: "a new or empty directory (default: exports/NAME-vVERSION-FORMAT in the home, NAME-vVERSION-LAYOUT-FORMAT for a layout other than trl)"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			opts, err := parseExport(cmd)
			if err != nil {
				return err
			}
			return a.runDatasetsExport(ctx, opts)
		},
	}
}

func parseExport(cmd *cli.Command) (exportOptions, error) {
	ref, err := datasetRef(cmd)
	if err != nil {
		return exportOptions{}, err
	}
	opts := exportOptions{ref: ref, format: cmd.String("format"), layout: cmd.String("layout"), out: cmd.String("out")}
	if opts.format != datasets.FormatParquet && opts.format != datasets.FormatJSONL {
		return opts, usage.Errorf("--format %q: use parquet or jsonl", opts.format)
	}
	if !slices.Contains(datasets.Layouts, opts.layout) {
		return opts, usage.Errorf("--layout %q: use %s", opts.layout, strings.Join(datasets.Layouts, ", "))
	}
	for _, k := range cmd.StringSlice("kinds") {
		for _, k := range strings.Split(k, ",") {
			if k = strings.TrimSpace(k); !slices.Contains(kb.ExampleKinds, k) {
				return opts, usage.Errorf("--kinds: %q is no kind: use %s", k, strings.Join(kb.ExampleKinds, ", "))
			}
			opts.kinds = append(opts.kinds, k)
		}
	}
	return opts, nil
}

func (a *app) runDatasetsExport(ctx context.Context, opts exportOptions) error {
	cfg, err := config.Load(a.home.ConfigPath())
	if err != nil {
		return err
	}
	var m *datasets.Manifest
	err = a.withRaw(ctx, func(q kb.Querier) error {
		if opts.out == "" {
			d, err := kb.ResolveDataset(ctx, q, opts.ref)
			if err != nil {
				return err
			}
			layout := opts.layout
			if layout == datasets.LayoutTRL {
				layout = ""
			}
			opts.out = a.home.ExportDir(d.Name, d.Version, layout, opts.format)
			opts.ref.Version = d.Version
		}
		m, err = datasets.Export(ctx, q, opts.ref, datasets.ExportOptions{Format: opts.format, Layout: opts.layout, Kinds: opts.kinds,
			Out: opts.out, ShardBytes: int64(cfg.Curate.ShardMaxMB) << 20, EnableThinking: cfg.Models.Think})
		return err
	})
	if errors.As(err, new(*datasets.NotEmptyError)) || errors.As(err, new(*datasets.LayoutError)) {
		return usage.Errorf("%v", err)
	}
	if err != nil {
		return err
	}
	for _, w := range m.Warnings {
		a.log.Warn(w)
	}
	if a.json {
		return a.writeJSON(m)
	}
	rows := 0
	for _, f := range m.Files {
		rows += f.Rows
	}
	fmt.Fprintf(a.stdout, "exported %s@%d (%s layout): %d rows in %d files to %s\n", m.Dataset, m.Version, m.Layout, rows, len(m.Files), opts.out)
	for _, k := range slices.Sorted(maps.Keys(m.LeftOut)) {
		fmt.Fprintf(a.stdout, "left out %d %s rows (--kinds)\n", m.LeftOut[k], k)
	}
	return nil
}
