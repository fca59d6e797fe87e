package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/agent/adapters"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

func (a *app) adaptersCommand() *cli.Command {
	return &cli.Command{
		Name:  "adapters",
		Usage: "register trained LoRA adapters, print how to serve them, promote one per stage, roll back",
		Description: "A LoRA trained on a `cra datasets export` is registered with `cra adapters add`: cra reads\n" +
			"its PEFT directory (adapter_config.json, adapter_model.safetensors or .bin) and records it as\n" +
			"a version of NAME, with the dataset and training plan it came from. A version's life, per\n" +
			"stage: candidate (registered) → gate (`cra adapters eval`: the held-out tasks with and without\n" +
			"it) → champion (`promote`: the stage's calls go to it) → retired (another was promoted, or\n" +
			"`rollback`). `serve-config` prints how to load the adapters on vLLM, llama.cpp's server or\n" +
			"Ollama; every command that calls models routes each stage to its champion, unless\n" +
			"[models.overrides] names a model for the stage.",
		Commands: []*cli.Command{
			a.adaptersAddCommand(),
			a.adaptersListCommand(),
			a.adaptersShowCommand(),
			a.adaptersServeConfigCommand(),
			a.adaptersEvalCommand(),
			a.adaptersPromoteCommand(),
			a.adaptersRollbackCommand(),
		},
	}
}

// addOptions is `cra adapters add` parsed.
type addOptions struct {
	name, path, dataset string
	stages              []string
	plan                int64
	force               bool
}

func (a *app) adaptersAddCommand() *cli.Command {
	return &cli.Command{
		Name:      "add",
		Usage:     "register the adapter in a PEFT directory as the next version of NAME",
		ArgsUsage: "NAME",
		Description: "Reads DIR/adapter_config.json (base model, r, lora_alpha, target_modules) and the weights\n" +
			"(adapter_model.safetensors, else adapter_model.bin: sha256 and size). Refuses an adapter\n" +
			"whose base model is not the model serving its stages (their role's, or the stage's\n" +
			"override), and a stage the --plan did not target unless --force. The same files for the\n" +
			"same stages again are the version they already are; changed weights are a new version.\n" +
			"The new version is a candidate: nothing is routed to it before `cra adapters promote`.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "path", Usage: "the adapter's PEFT `DIR` (what the trainer's save_pretrained wrote)"},
			&cli.StringFlag{Name: "stages", Usage: "the `STAGES` it was trained for, comma-separated: " + strings.Join(adapters.Stages, ", ")},
			&cli.StringFlag{Name: "dataset", Usage: "the dataset it was trained on, `NAME[@VERSION]` (the latest when no version)"},
			&cli.Int64Flag{Name: "plan", Usage: "the training plan `ID` it was trained for (the id in train-plan's plan.json)"},
			&cli.BoolFlag{Name: "force", Usage: "register it for stages the --plan did not target"},
			storeWaitFlag(),
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() != 1 {
				return usage.Errorf("adapters add needs one NAME (see `cra adapters add --help`)")
			}
			if cmd.String("path") == "" || cmd.String("stages") == "" {
				return usage.Errorf("adapters add needs --path DIR and --stages S[,S] (see `cra adapters add --help`)")
			}
			if cmd.Int64("plan") < 0 {
				return usage.Errorf("--plan: a training plan id is a number from 1")
			}
			opts := addOptions{name: cmd.Args().First(), path: cmd.String("path"), dataset: cmd.String("dataset"),
				stages: splitList(cmd.String("stages")), plan: cmd.Int64("plan"), force: cmd.Bool("force")}
			return a.runAdaptersAdd(ctx, cmd, opts)
		},
	}
}

func (a *app) runAdaptersAdd(ctx context.Context, cmd *cli.Command, opts addOptions) error {
	cfg, err := config.Load(a.home.ConfigPath())
	if err != nil {
		return err
	}
	st, err := a.adapterStore(cmd, true)
	if err != nil {
		return err
	}
	added, err := adapters.Add(ctx, adapters.AddOptions{Store: st, Name: opts.name, Path: opts.path, Stages: opts.stages,
		Dataset: opts.dataset, PlanID: opts.plan, Force: opts.force, Config: cfg})
	if err != nil {
		return err
	}
	if a.json {
		return a.writeJSON(added)
	}
	v := added.Adapter
	if added.New {
		fmt.Fprintf(a.stdout, "registered %s for %s (a candidate: gate it with `cra adapters eval %s`)\n", v.Ref(), strings.Join(v.Stages, ", "), v.Ref())
	} else {
		fmt.Fprintf(a.stdout, "already registered as %s (same weights, same stages): nothing added\n", v.Ref())
	}
	fmt.Fprintf(a.stdout, "base %s, rank %d, alpha %g, %s %s (%d bytes)\n", v.BaseModel, v.Rank, v.Alpha, v.WeightsFile, v.SHA256, v.SizeBytes)
	return nil
}

// adapterStore is how the adapters commands open the raw store: with
// --wait, as the other commands that write a little.
func (a *app) adapterStore(cmd *cli.Command, write bool) (adapters.Store, error) {
	opts, err := a.storeOptions(cmd, write)
	return adapters.Store{Home: a.home.Dir, Open: opts}, err
}

// readRegistry reads the registry from the raw store opened read-only.
func (a *app) readRegistry(ctx context.Context, cmd *cli.Command) (adapters.Registry, error) {
	opts, err := a.storeOptions(cmd, false)
	if err != nil {
		return adapters.Registry{}, err
	}
	raw, err := kb.Open(ctx, a.home.Dir, kb.Raw, opts)
	if err != nil {
		return adapters.Registry{}, err
	}
	defer raw.Close()
	return adapters.ReadRegistry(ctx, raw.DB)
}

func (a *app) adaptersListCommand() *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "per stage: the champion (routed), the candidates and the retired versions, with their last gate",
		Flags: []cli.Flag{storeWaitFlag()},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() > 0 {
				return usage.Errorf("adapters list takes no arguments")
			}
			reg, err := a.readRegistry(ctx, cmd)
			if err != nil {
				return err
			}
			status := reg.Status()
			if a.json {
				return a.writeJSON(status)
			}
			return printAdapterStatus(a.stdout, status)
		},
	}
}

func printAdapterStatus(w io.Writer, status []adapters.StageStatus) error {
	if len(status) == 0 {
		_, err := fmt.Fprintln(w, "no adapters: register one with `cra adapters add NAME --path DIR --stages S`")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STAGE\tSTANDING\tADAPTER\tBASE MODEL\tRANK\tDATASET\tGATE\tCREATED")
	row := func(stage, standing string, v adapters.Version) {
		dataset := "-"
		if v.Dataset != "" {
			dataset = v.Dataset + "@" + strconv.Itoa(v.DatasetVersion)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", stage, standing, v.Ref(), v.BaseModel, v.Rank, dataset,
			adapters.GateSummary(v.Gate), v.Created)
	}
	for _, st := range status {
		if st.Champion != nil {
			row(st.Stage, "champion", *st.Champion)
		}
		for _, v := range st.Candidates {
			row(st.Stage, "candidate", v)
		}
		for _, v := range st.Retired {
			row(st.Stage, "retired", v)
		}
	}
	return tw.Flush()
}

func (a *app) adaptersShowCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "one adapter version: its files, lineage, standing per stage, last gate and routing events",
		ArgsUsage: "NAME[@VERSION]",
		Flags:     []cli.Flag{storeWaitFlag()},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() != 1 {
				return usage.Errorf("adapters show needs one adapter, NAME or NAME@VERSION (see `cra adapters list`)")
			}
			reg, err := a.readRegistry(ctx, cmd)
			if err != nil {
				return err
			}
			v, err := reg.Find(cmd.Args().First())
			if err != nil {
				return err
			}
			shown := reg.Show(v)
			if a.json {
				return a.writeJSON(shown)
			}
			return printAdapter(a.stdout, shown)
		},
	}
}

func printAdapter(w io.Writer, s adapters.Shown) error {
	fmt.Fprintf(w, "adapter %s (registered %s by cra %s)\n", s.Ref(), s.Created, s.CraVersion)
	fmt.Fprintf(w, "path         %s\n", s.Path)
	fmt.Fprintf(w, "weights      %s, sha256 %s, %d bytes\n", s.WeightsFile, s.SHA256, s.SizeBytes)
	fmt.Fprintf(w, "base model   %s\n", s.BaseModel)
	fmt.Fprintf(w, "lora         rank %d, alpha %g, modules %s\n", s.Rank, s.Alpha, strings.Join(s.TargetModules, ", "))
	dataset, plan := "-", "-"
	if s.Dataset != "" {
		dataset = s.Dataset + "@" + strconv.Itoa(s.DatasetVersion)
	}
	if s.TrainingPlanID != 0 {
		plan = strconv.FormatInt(s.TrainingPlanID, 10)
	}
	fmt.Fprintf(w, "dataset      %s\nplan         %s\n", dataset, plan)
	fmt.Fprintln(w, "\nstages:")
	for _, st := range s.Stages {
		fmt.Fprintf(w, "  %s %s\n", st, s.Standing[st])
	}
	fmt.Fprintf(w, "\ngate: %s\n", adapters.GateSummary(s.Gate))
	if g := s.Gate; g != nil {
		fmt.Fprintf(w, "  evals %s (baseline) and %s (candidate), %s\n", g.BaselineEval, g.CandidateEval, g.Created)
		for _, c := range g.Conditions {
			verdict := "failed"
			if c.Passed {
				verdict = "passed"
			}
			fmt.Fprintf(w, "  %s %s %s\n", verdict, c.Name, adapters.Figures(c.Figures))
		}
	}
	if len(s.Events) > 0 {
		fmt.Fprintln(w, "\nevents:")
	}
	for _, e := range s.Events {
		fmt.Fprintf(w, "  %s %s %s: %s → %s by %s", e.Created, e.Action, e.Stage, refOrNone(e.FromName, e.FromVersion),
			refOrNone(e.ToName, e.ToVersion), e.Actor)
		if e.Reason != "" {
			fmt.Fprintf(w, " (%s)", e.Reason)
		}
		fmt.Fprintln(w)
	}
	return nil
}

func refOrNone(name string, v int) string {
	if name == "" {
		return "none"
	}
	return name + "@" + strconv.Itoa(v)
}

func (a *app) adaptersServeConfigCommand() *cli.Command {
	return &cli.Command{
		Name:      "serve-config",
		Usage:     "print how to serve adapters on vLLM, llama.cpp's server or Ollama",
		ArgsUsage: "[NAME[@VERSION]...]",
		Description: "Prints the commands that load the adapters named (NAME: its latest version), by default every\n" +
			"champion and candidate: vLLM's `vllm serve` with --lora-modules, llama-server with --lora\n" +
			"and the adapter ids in load order, or an Ollama Modelfile and `ollama create` per adapter.\n" +
			"Each adapter is served as NAME-vVERSION, the name cra's router asks for.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "server", Usage: "`SERVER`: " + strings.Join(config.Servers(), ", ") + " (default: [adapters] server, else by [models] provider)"},
			storeWaitFlag(),
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			cfg, err := config.Load(a.home.ConfigPath())
			if err != nil {
				return err
			}
			server := cmd.String("server")
			if server == "" {
				server = defaultServer(cfg)
			}
			reg, err := a.readRegistry(ctx, cmd)
			if err != nil {
				return err
			}
			list, err := serveList(reg, cmd.Args().Slice())
			if err != nil {
				return err
			}
			text, err := adapters.ServeConfig(server, list, cfg)
			if err != nil {
				return err
			}
			_, err = io.WriteString(a.stdout, text)
			return err
		},
	}
}

// defaultServer is [adapters] server, else the server the provider
// implies (the contract of config.Adapters.Server).
func defaultServer(cfg config.Config) string {
	switch {
	case cfg.Adapters.Server != "":
		return cfg.Adapters.Server
	case cfg.Models.Provider == "ollama":
		return config.ServerOllama
	}
	return config.ServerVLLM
}

// serveList is the adapters named, or every champion and candidate.
func serveList(reg adapters.Registry, names []string) ([]kb.AdapterRow, error) {
	var out []kb.AdapterRow
	seen := map[string]bool{}
	add := func(v kb.AdapterRow) {
		if !seen[v.Ref()] {
			seen[v.Ref()] = true
			out = append(out, v)
		}
	}
	for _, n := range names {
		v, err := reg.Find(n)
		if err != nil {
			return nil, err
		}
		add(v)
	}
	if len(names) > 0 {
		return out, nil
	}
	for _, st := range reg.Status() {
		if st.Champion != nil {
			add(st.Champion.AdapterRow)
		}
		for _, v := range st.Candidates {
			add(v.AdapterRow)
		}
	}
	return out, nil
}

func (a *app) adaptersPromoteCommand() *cli.Command {
	return &cli.Command{
		Name:      "promote",
		Usage:     "route the adapter's stages to it, if its latest gate passed on the current champions",
		ArgsUsage: "NAME[@VERSION]",
		Description: "Promotes only when the version's latest `cra adapters eval` passed and was judged against\n" +
			"the champion each of its stages has now; otherwise exits 1 naming the failed condition and\n" +
			"its figures. --force --reason TEXT promotes anyway and records the override (action force).\n" +
			"Every change is an event: `cra adapters show` lists them.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Usage: "promote without a passing, current gate (needs --reason)"},
			&cli.StringFlag{Name: "reason", Usage: "why the override: `TEXT` recorded with the event"},
			storeWaitFlag(),
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() != 1 {
				return usage.Errorf("adapters promote needs one adapter, NAME or NAME@VERSION (see `cra adapters list`)")
			}
			st, err := a.adapterStore(cmd, true)
			if err != nil {
				return err
			}
			routed, err := adapters.Promote(ctx, adapters.PromoteOptions{Store: st, Adapter: cmd.Args().First(),
				Force: cmd.Bool("force"), Reason: cmd.String("reason")})
			if err != nil {
				return err
			}
			return a.printRouted(routed)
		},
	}
}

func (a *app) adaptersRollbackCommand() *cli.Command {
	return &cli.Command{
		Name:      "rollback",
		Usage:     "route a stage back to its previous champion",
		ArgsUsage: "STAGE",
		Description: "The previous champion is the one the stage's latest routing change replaced (none: the\n" +
			"stage goes back to its role's model). Recorded as an event.",
		Flags: []cli.Flag{storeWaitFlag()},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() != 1 {
				return usage.Errorf("adapters rollback needs one STAGE, e.g. `cra adapters rollback %s`", schema.StageScope)
			}
			st, err := a.adapterStore(cmd, true)
			if err != nil {
				return err
			}
			routed, err := adapters.Rollback(ctx, st, cmd.Args().First())
			if err != nil {
				return err
			}
			return a.printRouted(routed)
		},
	}
}

func (a *app) printRouted(r adapters.Routed) error {
	if a.json {
		return a.writeJSON(r)
	}
	for _, s := range r.Already {
		fmt.Fprintf(a.stdout, "%s: %s is its champion already\n", s, r.Adapter)
	}
	for _, e := range r.Events {
		fmt.Fprintf(a.stdout, "%s: %s → %s (%s, event %d)\n", e.Stage, refOrNone(e.FromName, e.FromVersion),
			refOrNone(e.ToName, e.ToVersion), e.Action, e.ID)
	}
	return nil
}
