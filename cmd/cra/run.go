package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"

	"github.com/urfave/cli/v3"
	"golang.org/x/term"

	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/internal/version"
	"github.com/cra-dev/cra/kb"
)

// app is what every command gets: the injected streams and the global flags.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	stdoutTTY      bool
	home           config.Home
	json           bool
	flagsRead      bool   // before ran: json holds --json as cli parsed it
	jsonOut        []byte // with --json, the command's document (jsonout.go)
	log            *slog.Logger
	logOut         *logWriter // where log lines go: stderr, or through a progress bar
}

// logWriter is the log's destination, switched while a progress bar is on
// the terminal so that log lines never tear it.
type logWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *logWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func (l *logWriter) set(w io.Writer) {
	l.mu.Lock()
	l.w = w
	l.mu.Unlock()
}

// Run runs cra with args (without the program name) and returns the exit
// code. Tests call it in-process with buffers.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, stdoutTTY: isTerminal(stdout)}
	var held *spool // with --json, stdout until the command's outcome is known (jsonout.go)
	if jsonInArgs(args) {
		held = &spool{}
		a.stdout = held
		defer held.discard()
	}
	root := a.rootCommand()
	setUsageErrors(root)
	err := kb.Explain(root.Run(ctx, append([]string{"cra"}, args...)))
	code := exitCode(ctx, err)
	var msg string
	if err != nil {
		msg = err.Error()
		if code == exitInterrupted {
			msg = "interrupted: " + msg
		}
		fmt.Fprintf(stderr, "cra: %s\n", msg)
	}
	if held == nil {
		return code
	}
	if werr := a.finishJSON(stdout, held, msg, code); werr != nil && code == exitOK {
		fmt.Fprintf(stderr, "cra: write the output: %v\n", werr)
		return exitFailures
	}
	return code
}

func (a *app) rootCommand() *cli.Command {
	var root *cli.Command
	root = &cli.Command{
		Name:  "cra",
		Usage: "index code, mine git history and curate fine-tuning datasets for a local code model",
		Description: "Data lives in the home directory (--home, $CRA_HOME, default ~/.cra): config.toml,\n" +
			"curated.duckdb (the code knowledge base), raw.duckdb (every run and model call),\n" +
			"sessions/ and exports/.\n\n" + exitCodesHelp,
		Writer:                a.stdout,
		ErrWriter:             a.stderr,
		Reader:                a.stdin,
		EnableShellCompletion: true,
		// `cra completion bash|zsh|fish` is listed in the help, not hidden.
		// cli adds it, and its own help command, as it sets up, just
		// before this call: their usage errors must be cra's too.
		ConfigureShellCompletionCommand: func(c *cli.Command) {
			c.Hidden = false
			setUsageErrors(root)
		},
		Suggest: true,
		Version: version.String(),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "home", Usage: "cra's data directory (default $CRA_HOME, else ~/.cra)"},
			&cli.StringFlag{Name: "log-level", Value: "info", Usage: "debug, info, warn or error"},
			&cli.StringFlag{Name: "log-format", Value: "text", Usage: "text or json (logs go to stderr)"},
			&cli.BoolFlag{Name: "json", Usage: "machine-readable output on stdout"},
		},
		Before: a.before,
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() > 0 {
				return usage.Errorf("unknown command %q (see `cra --help`)", cmd.Args().First())
			}
			return cli.ShowRootCommandHelp(cmd)
		},
		// Errors are printed once, by Run; cli must never exit the process.
		ExitErrHandler: func(context.Context, *cli.Command, error) {},
		Commands: []*cli.Command{
			a.initCommand(),
			a.indexCommand(),
			a.bootstrapCommand(),
			a.curateCommand(),
			a.distillCommand(),
			a.datasetsCommand(),
			a.modelsCommand(),
			a.enrichCommand(),
			a.planCommand(),
			a.askCommand(),
			a.solveCommand(),
			a.evalCommand(),
			a.trainPlanCommand(),
			a.adaptersCommand(),
			a.shardsCommand(),
			a.sqlCommand(),
			a.statusCommand(),
			a.compactCommand(),
			a.versionCommand(),
		},
	}
	return root
}

// setUsageErrors makes every command's flag errors usage errors (exit 2)
// that point at the command's help, and a command of commands (datasets,
// models) refuse a word that names none of them as one. Only the root has
// a help command (`cra help status`): under the others cli would add one
// after this ran, beyond its reach (`cra status --help` is the way).
func setUsageErrors(cmd *cli.Command) {
	cmd.OnUsageError = func(_ context.Context, c *cli.Command, err error, _ bool) error {
		return usage.Errorf("%v (see `%s --help`)", err, c.FullName())
	}
	if cmd.Action == nil && len(cmd.Commands) > 0 {
		cmd.Action = func(_ context.Context, c *cli.Command) error {
			if c.Args().Len() > 0 {
				return usage.Errorf("unknown command %q (see `%s --help`)", c.Args().First(), c.FullName())
			}
			return cli.ShowSubcommandHelp(c)
		}
	}
	for _, sub := range cmd.Commands {
		sub.HideHelpCommand = true
		setUsageErrors(sub)
	}
}

func (a *app) before(ctx context.Context, cmd *cli.Command) (context.Context, error) {
	a.json, a.flagsRead = cmd.Bool("json"), true
	home, err := config.ResolveHome(cmd.String("home"))
	if err != nil {
		return ctx, usage.Errorf("--home: %v", err)
	}
	a.home = home
	// DuckDB's memory limit and threads apply to every store the command
	// opens; a config.toml that does not load is reported by the commands
	// that read it, and the defaults apply meanwhile.
	if cfg, err := config.Load(home.ConfigPath()); err == nil {
		kb.SetMemoryLimit(cfg.Store.MemoryLimit)
		kb.SetThreads(cfg.Store.Threads)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(cmd.String("log-level"))); err != nil {
		return ctx, usage.Errorf("--log-level %q: use debug, info, warn or error", cmd.String("log-level"))
	}
	opts := &slog.HandlerOptions{Level: level}
	a.logOut = &logWriter{w: a.stderr}
	switch cmd.String("log-format") {
	case "text":
		a.log = slog.New(slog.NewTextHandler(a.logOut, opts))
	case "json":
		a.log = slog.New(slog.NewJSONHandler(a.logOut, opts))
	default:
		return ctx, usage.Errorf("--log-format %q: use text or json", cmd.String("log-format"))
	}
	return ctx, nil
}

// commandName names the running command for lock notes, e.g. "cra sql".
func commandName(cmd *cli.Command) string {
	return strings.TrimSpace("cra " + strings.TrimPrefix(cmd.FullName(), "cra "))
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// memoryLimit is the Go heap limit of a batch: GOMEMLIMIT when the user set
// one (the runtime reads it), else the command's default.
func memoryLimit(def int64) int64 {
	if os.Getenv("GOMEMLIMIT") != "" {
		return 0
	}
	return def
}
