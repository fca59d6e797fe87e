package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
)

// Exit codes, the one place they are decided. Listed in `cra --help`.
const (
	exitOK          = 0   // everything done
	exitFailures    = 1   // finished, but some inputs or steps failed
	exitUsage       = 2   // usage, configuration or environment error: nothing was done
	exitInterrupted = 130 // SIGINT/SIGTERM: stopped, stores left consistent
)

const exitCodesHelp = `EXIT CODES:
   0    everything done
   1    finished, but some inputs failed or were busy: another cra run held them (see the summary)
   2    usage, configuration or store error (bad flag, bad config.toml, store missing,
        damaged, locked by another cra or newer than this cra, SQL error, a model that
        does not answer cra plan's, ask's, solve's or eval's preflight): nothing was done
   130  interrupted (SIGINT/SIGTERM): stores left consistent; run again to finish
   With --json, stdout holds one JSON document: on a failure, the summary (if any) with
   "error" and "exit_code" fields, else {"error": "...", "exit_code": N}.`

// partialError says a batch finished with some inputs failed, or a run
// finished without doing what it was asked (why says what stopped it).
type partialError struct {
	failed, total int
	why           string
}

// Error counts the inputs that failed, and says why when it knows. A
// count of nothing ("0 of 0 inputs failed") tells a user nothing: a run
// that failed before it had inputs says what stopped it instead.
func (e *partialError) Error() string {
	count := fmt.Sprintf("%d of %d inputs failed", e.failed, e.total)
	switch {
	case e.total == 0 && e.why != "":
		return e.why
	case e.total == 0:
		return "failed before any input was done (see the summary)"
	case e.why != "":
		return count + ": " + e.why
	}
	return count
}

// batchDone ends a batch command: the summary on stdout (JSON with --json,
// else human), then the batch's own error, else exit 1 if some of its
// inputs failed.
func (a *app) batchDone(sum any, human func() error, err error, failed, total int) error {
	var out error
	if a.json {
		out = a.writeJSON(sum)
	} else {
		out = human()
	}
	switch {
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("stopped before the end; what was saved stays (see the summary): run the same command again to finish: %w", err)
	case err != nil:
		return err
	case out != nil:
		return out
	case failed > 0:
		return &partialError{failed: failed, total: total}
	}
	return nil
}

// exitCode maps an error returned by a command to the process exit code.
func exitCode(ctx context.Context, err error) int {
	if err == nil {
		return exitOK
	}
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return exitInterrupted
	}
	var (
		cfgErr     *config.Error
		homeErr    *config.HomeError
		notInit    *kb.NotInitializedError
		locked     *kb.LockedError
		other      *kb.OtherProgramError
		newer      *kb.NewerStoreError
		partial    *partialError
		sqlErr     *kb.ScriptError
		damaged    *kb.DamagedError
		unanswered *llm.UnansweredError
	)
	var cliExit cli.ExitCoder // only cli's own help and completion commands make these: an unknown topic or shell
	switch {
	case errors.As(err, &partial):
		return exitFailures
	case errors.As(err, &cliExit):
		return exitUsage
	case usage.Is(err), errors.As(err, &cfgErr), errors.As(err, &homeErr), errors.As(err, &notInit),
		errors.As(err, &locked), errors.As(err, &other), errors.As(err, &newer), errors.As(err, &sqlErr),
		errors.As(err, &damaged), errors.As(err, &unanswered):
		return exitUsage
	}
	return exitFailures
}
