package distill

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/kb"
)

// distillLive is a run that sends the teacher its requests one by one
// (not in a batch), up to opts.Jobs at once, on the raw store's writer w
// (held for the run), a window of the selection at a time.
func distillLive(ctx context.Context, w kb.Writer, opts Options) (*Summary, error) {
	d := newDistiller(opts)
	d.w = w
	sel, err := selectionOf(ctx, w.Conn, opts)
	if err != nil {
		return nil, err
	}
	if err := d.begin(ctx); err != nil {
		return nil, err
	}
	var client *llm.Logged // made for the first request the cache cannot answer
	runErr := d.eachUncached(ctx, sel, func(misses []*job) (err error) {
		if len(misses) > 0 && client == nil {
			if client, err = d.newTeacher(); err != nil {
				return err
			}
		}
		return d.live(ctx, client, misses)
	})
	if client != nil {
		runErr = errors.Join(runErr, client.Close())
		// The rows of calls that brought nothing to store (cut off).
		runErr = errors.Join(runErr, d.tx(ctx, func(context.Context) error { return d.appendCalls() }))
	}
	if runErr != nil && ctx.Err() != nil {
		runErr = ctx.Err() // whatever step it cut short: an interruption
	}
	if runErr == nil || errors.Is(runErr, context.Canceled) {
		if err := d.register(ctx, sel.split); err != nil {
			runErr = errors.Join(runErr, err)
		}
	}
	return d.sum, errors.Join(runErr, d.finish(ctx, runErr))
}

// live calls the teacher for jobs, in order, until done, the budget or
// --max-calls stops the run, or ctx ends.
func (d *distiller) live(ctx context.Context, client *llm.Logged, jobs []*job) error {
	if len(jobs) == 0 {
		return nil
	}
	d.opts.Progress.Phase("ask the teacher", int64(len(jobs)))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(d.opts.Jobs)
	for _, j := range jobs {
		if d.stopped() || gctx.Err() != nil {
			continue
		}
		turn := d.turns
		d.turns++
		g.Go(func() error {
			defer d.opts.Progress.Add(1)
			if d.opts.MaxCalls > 0 && d.sent.Add(1) > int64(d.opts.MaxCalls) {
				d.spend.pass(turn)
				d.stopWith(StopMaxCalls)
				return nil
			}
			return d.call(gctx, client, j, turn)
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if err := d.faulted(); err != nil {
		return err
	}
	return ctx.Err()
}

// call asks the teacher j's request and stores what it brings. The most
// the request can cost is reserved (in the ledger and the store) before it
// is sent; its log row, its answer, its cost and its items' outcomes are
// stored in one transaction, before the worker takes another request: a
// run killed at any point never loses an answer it stored, and a request
// whose answer is stored is never sent again.
func (d *distiller) call(ctx context.Context, client *llm.Logged, j *job, turn int64) error {
	bound := d.price.upper(j.body)
	if !d.spend.reserve(turn, bound) {
		d.stopWith(StopBudget)
		return nil
	}
	if ctx.Err() != nil {
		d.spend.settle(bound, 0)
		return nil
	}
	err := d.tx(ctx, func(ctx context.Context) error {
		return kb.ReserveDistillSpend(d.w, []kb.DistillReservation{{RunID: d.runID, Name: d.opts.Name, Key: j.key,
			ReservedUSD: fromNanos(bound), At: time.Now().UTC()}})
	})
	if err != nil {
		d.spend.settle(bound, 0)
		return err
	}
	d.count(j.stage, func(s *StageSummary) { s.Calls++ })
	resp, callErr := client.Complete(ctx, j.req)
	if err := client.Flush(); err != nil {
		return fmt.Errorf("log the teacher's call: %w", err)
	}
	if callErr != nil {
		// An HTTP error answer is not charged; a call with no answer (cut
		// off, timed out, interrupted) may have been: it keeps its
		// reservation as spent.
		var e *llm.Error
		cost := bound
		if errors.As(callErr, &e) && e.StatusCode >= 400 {
			cost = 0
		}
		d.spend.settle(bound, cost)
		if ctx.Err() != nil {
			return nil
		}
		d.count(j.stage, func(s *StageSummary) { s.Failed += len(j.items) })
		d.opts.Log.Warn("teacher call failed; the next run asks again", "stage", j.stage, "request", j.key[:12], "err", callErr)
		if err := d.tx(ctx, func(ctx context.Context) error {
			if err := d.appendCalls(); err != nil {
				return err
			}
			return kb.SettleDistillSpend(ctx, d.w.Conn, d.runID, j.key, fromNanos(cost))
		}); err != nil {
			return err
		}
		if fatal(callErr) {
			return callErr
		}
		return nil
	}
	entry := d.entry(client, j, resp, "")
	if fault := d.overReported(j, resp); fault != nil {
		return d.refuse(ctx, j, bound, entry, fault)
	}
	outcomes := d.judge(j, entry, false)
	err = d.tx(ctx, func(ctx context.Context) error {
		if err := d.appendCalls(); err != nil {
			return err
		}
		if err := kb.AppendDistillCache(ctx, d.w, []kb.DistillCacheEntry{entry}); err != nil {
			return err
		}
		if err := kb.SettleDistillSpend(ctx, d.w.Conn, d.runID, j.key, entry.CostUSD); err != nil {
			return err
		}
		return kb.AppendDistillOutcomes(ctx, d.w, outcomes)
	})
	d.spend.settle(bound, toNanos(entry.CostUSD))
	return err
}

// refuse stores what an answer the provider misreported leaves: its call
// row, and its reported cost as spent (the provider may bill it), but not
// the answer — it is not cached, judged or made an example — and stops
// the run for fault.
func (d *distiller) refuse(ctx context.Context, j *job, bound int64, entry kb.DistillCacheEntry, fault *ProviderFaultError) error {
	d.failWith(fault)
	d.count(j.stage, func(s *StageSummary) { s.Failed += len(j.items) })
	d.opts.Log.Warn("teacher answer refused: more completion tokens than max_tokens", "stage", j.stage, "request", j.key[:12],
		"completion_tokens", fault.Reported, "max_tokens", fault.Allowed)
	err := d.tx(ctx, func(ctx context.Context) error {
		if err := d.appendCalls(); err != nil {
			return err
		}
		return kb.SettleDistillSpend(ctx, d.w.Conn, d.runID, j.key, entry.CostUSD)
	})
	d.spend.settle(bound, toNanos(entry.CostUSD))
	return err
}

// entry is the cache row of an answer: its text as logged (the API key
// masked), its usage and what it cost. A provider that reports no usage
// is taken to have charged the most the request could cost.
func (d *distiller) entry(client *llm.Logged, j *job, resp llm.Response, batchID string) kb.DistillCacheEntry {
	e := kb.DistillCacheEntry{Key: j.key, Model: d.opts.Teacher.Model, Response: client.Mask(resp.Text),
		Thinking: client.Mask(resp.Thinking), PromptTokens: resp.PromptTokens, CachedTokens: resp.CachedPromptTokens,
		CompletionTokens: resp.CompletionTokens, BatchID: batchID, CallTaskID: j.req.TaskID, RunID: d.runID,
		At: time.Now().UTC()}
	var prompt, cachedTokens, completion int64
	for _, x := range []struct {
		n   *int
		dst *int64
	}{{resp.PromptTokens, &prompt}, {resp.CachedPromptTokens, &cachedTokens}, {resp.CompletionTokens, &completion}} {
		if x.n != nil {
			*x.dst = int64(*x.n)
		}
	}
	cost := d.price.upper(j.body)
	if resp.PromptTokens != nil && resp.CompletionTokens != nil {
		cost = d.price.cost(prompt, cachedTokens, completion)
	}
	e.CostUSD = fromNanos(cost)
	d.count(j.stage, func(s *StageSummary) {
		s.PromptTokens += prompt
		s.CachedTokens += cachedTokens
		s.CompletionTokens += completion
		s.CostUSD += e.CostUSD
	})
	return e
}
