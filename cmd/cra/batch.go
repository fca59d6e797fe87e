package main

import (
	"context"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/progress"
	"github.com/cra-dev/cra/internal/usage"
)

// waitFlag is --wait of the batch commands: how long to wait for an input
// (a repository) another cra run holds before skipping it.
func waitFlag() cli.Flag {
	return &cli.DurationFlag{Name: "wait", Usage: "wait up to `DURATION` (e.g. 10m) for a repository another cra run holds; " +
		"by default it is skipped at once, reported busy with the holder's pid and command (exit 1)"}
}

// batchEnv is what a batch command's run gets: the configuration and the
// progress display.
type batchEnv struct {
	cfg      config.Config
	progress *progress.Progress
}

// runBatch runs a batch command (index, bootstrap, enrich): it loads the
// configuration (without the adapter champions: no batch command calls a
// stage an adapter serves, so none waits on the raw store to read them),
// shows progress while run works, then prints the summary (JSON with
// --json, else human) and maps the outcome to the exit code: failed or
// busy inputs exit 1, an interruption 130.
func runBatch[S any](ctx context.Context, a *app, run func(context.Context, batchEnv) (*S, int, int, error), human func(*S) error) error {
	cfg, err := config.Load(a.home.ConfigPath())
	if err != nil {
		return err
	}
	p := a.startProgress()
	sum, failed, total, err := run(ctx, batchEnv{cfg: cfg, progress: p})
	a.stopProgress(p)
	if sum == nil {
		return err
	}
	return a.batchDone(sum, func() error { return human(sum) }, err, failed, total)
}

// checkCounts validates the --jobs (and like) flags every batch command has.
func checkCounts(flags map[string]int) error {
	for name, v := range flags {
		if v < 0 {
			return usage.Errorf("--%s must be positive", name)
		}
	}
	return nil
}

// waitOf reads --wait; a negative duration is a usage error.
func waitOf(cmd *cli.Command) (time.Duration, error) {
	w := cmd.Duration("wait")
	if w < 0 {
		return 0, usage.Errorf("--wait must be positive")
	}
	return w, nil
}

// startProgress shows a batch's progress on stderr (a bar on a terminal,
// log lines in cron) and routes log lines through it meanwhile.
func (a *app) startProgress() *progress.Progress {
	p := progress.Start(progress.Options{Out: a.stderr, TTY: isTerminal(a.stderr), Log: a.log})
	a.logOut.set(p.Writer(a.stderr))
	return p
}

func (a *app) stopProgress(p *progress.Progress) {
	p.Stop()
	a.logOut.set(a.stderr)
}
