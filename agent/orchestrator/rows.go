package orchestrator

import (
	"context"
	"slices"
	"sync"

	"github.com/cra-dev/cra/kb"
)

// passRows are the rows a pass makes while it runs — retrieval's
// decisions and model-less call rows, the model calls, the implement
// attempts with their validations — held until the pass ends and then
// written with its task_runs and orchestrator_passes rows and its
// session's archive in one transaction. A pass is thus in the raw store
// whole or not at all (a killed one is redone on resume), and a step
// costs one opening of the raw store per pass instead of one per row
// group: opening and closing DuckDB is most of the orchestrator's own
// time.
type passRows struct {
	// mask masks the configured API keys (the run's clients' Mask) in what
	// is stored beside the logged calls, which have them masked already:
	// an attempt's answer and validation output, the final diff, the
	// session archive. nil masks nothing.
	mask      func(string) string
	mu        sync.Mutex
	decisions []kb.Decision
	calls     []kb.LLMCall
	attempts  []attemptRow
}

// attemptRow is an attempt and its validation, waiting for the pass's
// task_runs id.
type attemptRow struct {
	run kb.RunAttempt
	val *kb.Validation
}

// record takes retrieval's rows (the pipeline's Record) and the model
// calls the logged clients hand over (their CallLog).
func (p *passRows) record(_ context.Context, d []kb.Decision, c []kb.LLMCall) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.decisions = append(p.decisions, d...)
	p.calls = append(p.calls, c...)
	return nil
}

// attempt holds an implement attempt and its validation, masked.
func (p *passRows) attempt(a kb.RunAttempt, v *kb.Validation) {
	a.RawResponse = p.masked(a.RawResponse)
	if v != nil {
		v.TestOutput, v.LintOutput, v.TypeCheckOut = p.masked(v.TestOutput), p.masked(v.LintOutput), p.masked(v.TypeCheckOut)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.attempts = append(p.attempts, attemptRow{a, v})
}

// masked is s with the configured API keys masked.
func (p *passRows) masked(s string) string {
	if p.mask == nil {
		return s
	}
	return p.mask(s)
}

// take empties p and returns what it held, the calls in the order they
// were made.
func (p *passRows) take() (decisions []kb.Decision, calls []kb.LLMCall, attempts []attemptRow) {
	p.mu.Lock()
	defer p.mu.Unlock()
	decisions, calls, attempts = p.decisions, p.calls, p.attempts
	p.decisions, p.calls, p.attempts = nil, nil, nil
	slices.SortStableFunc(calls, func(a, b kb.LLMCall) int { return a.At.Compare(b.At) })
	return decisions, calls, attempts
}

// writeHeld appends the rows a pass held under the pass's task run id, in w's
// transaction.
func writeHeld(ctx context.Context, w kb.Writer, taskRunID int64, decisions []kb.Decision, calls []kb.LLMCall, attempts []attemptRow) error {
	for _, a := range attempts {
		a.run.TaskRunID = taskRunID
		if _, err := kb.RecordAttempt(ctx, w.Conn, a.run, a.val); err != nil {
			return err
		}
	}
	if err := kb.AppendDecisions(w, decisions); err != nil {
		return err
	}
	return kb.AppendLLMCalls(w, calls)
}
