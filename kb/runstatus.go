package kb

// Statuses of a run and of each input of a batch, as run rows store them
// and summaries show them: the one vocabulary of index, bootstrap and the
// rest.
const (
	StatusOK          = "ok"          // done: every input processed
	StatusUpToDate    = "up_to_date"  // nothing new since the last run
	StatusPartial     = "partial"     // done in part: a limit was reached, or some inputs failed or were busy
	StatusFailed      = "failed"      // the input could not be processed; the batch went on
	StatusInterrupted = "interrupted" // SIGINT/SIGTERM or a killed process: what was written stays, a re-run finishes
	StatusBusy        = "busy"        // another run held the input: skipped
	StatusRunning     = "running"     // a run row whose process has not finished (or was killed)
)
