package distill

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
)

// Limits of one Batch API input file (OpenAI's: 50,000 requests, 200 MB).
const (
	batchMaxRequests = 50000
	batchMaxBytes    = 190 << 20
)

// distillBatches is a run through the Batch API, at its discount. It holds
// the raw store only to write: first the selection's cached answers and
// the new batches (recorded, their cost reserved, before anything is
// uploaded), then each batch's progress and results. While batches run —
// hours, on a real API — the store is free. Batches of earlier runs of
// the name are driven too: a restart resumes them by their ids, and one
// created by a run killed before recording it is found by its input file,
// never created twice.
func distillBatches(ctx context.Context, dir string, opts Options) (*Summary, error) {
	d := newDistiller(opts)
	api, err := llm.NewBatches(opts.Teacher, opts.ClientOptions...)
	if err != nil {
		return nil, usage.Errorf("teacher: %v", err)
	}
	defer api.Close()
	inner, err := llm.New(opts.Teacher, opts.ClientOptions...)
	if err != nil {
		return nil, usage.Errorf("teacher: %v", err)
	}
	// Rows are built by the logged client and stored with the results.
	client := llm.NewLogged(inner, opts.Teacher, func(context.Context, []kb.LLMCall) error { return nil })
	defer client.Close()

	var sel *selection
	var open []kb.DistillBatch
	inBatch := map[string]bool{} // requests whose answers come with a batch
	err = d.withStore(ctx, dir, func() (err error) {
		if sel, err = selectionOf(ctx, d.w.Conn, opts); err != nil {
			return err
		}
		if err := d.begin(ctx); err != nil {
			return err
		}
		if open, err = kb.OpenDistillBatches(ctx, d.w.Conn, opts.Name); err != nil {
			return err
		}
		for _, b := range open {
			for _, k := range b.CustomIDs {
				inBatch[k] = true
			}
		}
		return d.eachUncached(ctx, sel, func(misses []*job) error {
			var fresh []*job
			for _, j := range misses {
				if !inBatch[j.key] {
					fresh = append(fresh, j)
				}
			}
			submitted, err := d.submit(ctx, fresh)
			for _, b := range submitted {
				for _, k := range b.CustomIDs {
					inBatch[k] = true
				}
			}
			open = append(open, submitted...)
			return err
		})
	})
	if err != nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil {
		if d.runID == 0 {
			return nil, err
		}
		return d.sum, errors.Join(err, d.finishBatches(ctx, dir, err))
	}
	runErr := d.drive(ctx, dir, api, client, open)
	if runErr == nil {
		// The answers the batches brought, judged for this selection; a
		// request of a batch that brought none failed.
		runErr = d.withStore(ctx, dir, func() error {
			err := d.eachWindow(ctx, sel, false, func(jobs []*job) error {
				cache, err := kb.LoadDistillCache(ctx, d.w.Conn, keysOf(jobs))
				if err != nil {
					return err
				}
				hits, misses := cached(jobs, cache)
				for _, j := range misses {
					if inBatch[j.key] {
						d.count(j.stage, func(s *StageSummary) { s.Failed += len(j.items) })
					}
				}
				return d.replay(ctx, hits, cache, false)
			})
			if err != nil {
				return err
			}
			return d.register(ctx, sel.split)
		})
	}
	if runErr != nil && ctx.Err() != nil {
		runErr = ctx.Err()
	}
	return d.sum, errors.Join(runErr, d.finishBatches(ctx, dir, runErr))
}

// withStore opens the raw store for fn, as the run's writer.
func (d *distiller) withStore(ctx context.Context, dir string, fn func() error) error {
	return kb.WithWriter(ctx, dir, kb.Raw, kb.Options{Command: "cra distill --batch", Wait: kb.BatchWait},
		func(w kb.Writer) error {
			d.w = w
			return fn()
		})
}

// finishBatches records how the run ended, even when it was interrupted.
func (d *distiller) finishBatches(ctx context.Context, dir string, runErr error) error {
	return d.withStore(context.WithoutCancel(ctx), dir, func() error { return d.finish(ctx, runErr) })
}

// submit records the batches of fresh, in order, as long as the budget
// and --max-calls allow: each request's most it can cost (at the batch
// price) is reserved with its batch's row, before anything is uploaded.
func (d *distiller) submit(ctx context.Context, fresh []*job) ([]kb.DistillBatch, error) {
	var take []*job
	var bounds []int64
	for _, j := range fresh {
		if !d.stopped() && d.opts.MaxCalls > 0 && d.sent.Add(1) > int64(d.opts.MaxCalls) {
			d.stopWith(StopMaxCalls)
		}
		bound := d.price.upper(j.body)
		if !d.stopped() && !d.spend.take(bound) {
			d.stopWith(StopBudget)
		}
		if d.stopped() {
			continue
		}
		take, bounds = append(take, j), append(bounds, bound)
	}
	var out []kb.DistillBatch
	for lo := 0; lo < len(take); {
		var lines []llm.BatchLine
		size, hi := 0, lo
		for ; hi < len(take) && hi-lo < batchMaxRequests; hi++ {
			line := llm.BatchLine{CustomID: take[hi].key, Body: take[hi].body}
			n := len(llm.BatchInput([]llm.BatchLine{line}))
			if hi > lo && size+n > batchMaxBytes {
				break
			}
			size += n
			lines = append(lines, line)
		}
		input := llm.BatchInput(lines)
		sum := sha256.Sum256(append([]byte(strconv.FormatInt(d.runID, 10)+"\x00"), input...))
		b := kb.DistillBatch{ID: hex.EncodeToString(sum[:16]), Name: d.opts.Name, RunID: d.runID, Model: d.opts.Teacher.Model,
			Input: string(input), Status: kb.DistillBatchPending, Created: time.Now().UTC()}
		var rs []kb.DistillReservation
		for i, j := range take[lo:hi] {
			b.CustomIDs, b.Stages = append(b.CustomIDs, j.key), append(b.Stages, j.stage)
			rs = append(rs, kb.DistillReservation{RunID: d.runID, Name: d.opts.Name, Key: j.key, Batch: b.ID,
				ReservedUSD: fromNanos(bounds[lo+i]), At: b.Created})
		}
		if err := d.tx(ctx, func(ctx context.Context) error {
			if err := kb.InsertDistillBatch(ctx, d.w.Conn, b); err != nil {
				return err
			}
			return kb.ReserveDistillSpend(d.w, rs)
		}); err != nil {
			return out, err
		}
		for _, j := range take[lo:hi] {
			d.count(j.stage, func(s *StageSummary) { s.Calls++ })
		}
		out = append(out, b)
		lo = hi
	}
	return out, nil
}

// drive takes every open batch to its end — upload, create, ask about it
// every BatchPoll — and stores the results of each as it ends.
func (d *distiller) drive(ctx context.Context, dir string, api *llm.Batches, client *llm.Logged, open []kb.DistillBatch) error {
	if len(open) == 0 {
		return nil
	}
	d.opts.Progress.Phase("batches", int64(len(open)))
	for {
		running := 0
		for i := range open {
			b := &open[i]
			if b.Status == kb.DistillBatchDownloaded {
				continue
			}
			if err := d.advance(ctx, dir, api, client, b); err != nil {
				if ctx.Err() != nil {
					return ctx.Err() // whatever step it cut short: an interruption
				}
				return err
			}
			if err := d.faulted(); err != nil {
				return err // the batches still open are driven by the next run
			}
			if b.Status == kb.DistillBatchDownloaded {
				d.opts.Progress.Add(1)
			} else {
				running++
			}
		}
		if running == 0 {
			return nil
		}
		d.logf("waiting for batches", "running", running, "next_poll", d.opts.BatchPoll)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d.opts.BatchPoll):
		}
	}
}

// advance moves batch b as far as it goes now, recording each step.
func (d *distiller) advance(ctx context.Context, dir string, api *llm.Batches, client *llm.Logged, b *kb.DistillBatch) error {
	record := func() error {
		return d.withStore(ctx, dir, func() error {
			return d.tx(ctx, func(ctx context.Context) error { return kb.UpdateDistillBatch(ctx, d.w.Conn, *b) })
		})
	}
	if b.Status == kb.DistillBatchPending {
		id, err := api.Upload(ctx, "cra-distill-"+b.ID+".jsonl", []byte(b.Input))
		if err != nil {
			return fmt.Errorf("upload batch %s: %w", b.ID, err)
		}
		b.InputFileID, b.Status = id, kb.DistillBatchUploaded
		if err := record(); err != nil {
			return err
		}
	}
	if b.Status == kb.DistillBatchUploaded {
		// A run killed after creating the batch, before recording it,
		// left it on the API: find it rather than pay for it twice.
		remote, found, err := api.FindByInput(ctx, b.InputFileID)
		if err != nil {
			return fmt.Errorf("look for the batch of %s: %w", b.InputFileID, err)
		}
		if !found {
			if remote, err = api.Create(ctx, b.InputFileID, map[string]string{"cra_batch": b.ID, "cra_name": d.opts.Name}); err != nil {
				return fmt.Errorf("create batch %s: %w", b.ID, err)
			}
		}
		b.BatchID, b.Status = remote.ID, remote.Status
		if err := record(); err != nil {
			return err
		}
	}
	remote, err := api.Get(ctx, b.BatchID)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		d.opts.Log.Warn("could not ask about a batch; asking again later", "batch", b.BatchID, "err", err)
		return nil
	}
	if !remote.Done() {
		if remote.Status != b.Status {
			b.Status = remote.Status
			return record()
		}
		return nil
	}
	return d.download(ctx, dir, api, client, b, remote)
}

// download stores the results of an ended batch in one transaction: a
// log row per request (answered or not), the answers in the cache, the
// reservations settled (a request without an answer costs nothing), the
// batch marked downloaded. An answer reporting more completion tokens than
// max_tokens is settled at its reported cost and not cached, and stops the
// run (ProviderFaultError).
func (d *distiller) download(ctx context.Context, dir string, api *llm.Batches, client *llm.Logged, b *kb.DistillBatch, remote llm.Batch) error {
	jobs, err := batchJobs(b)
	if err != nil {
		return err
	}
	var results []llm.BatchResult
	for _, f := range []string{remote.OutputFileID, remote.ErrorFileID} {
		if f == "" {
			continue
		}
		rs, cut, err := api.Results(ctx, f, len(jobs))
		if err != nil {
			return fmt.Errorf("download the results of batch %s: %w", remote.ID, err)
		}
		if cut {
			d.opts.Log.Warn("a batch results file is larger than its requests' answers may be: the lines over the bound are not read, and their requests go in the next run's batch",
				"batch", remote.ID, "file", f)
		}
		results = append(results, rs...)
	}
	now := time.Now().UTC()
	var rows []kb.LLMCall
	var entries []kb.DistillCacheEntry
	costs := map[string]float64{}
	answered := map[string]bool{}
	for _, r := range results {
		j := jobs[r.CustomID]
		if j == nil || answered[r.CustomID] {
			continue
		}
		answered[r.CustomID] = true
		resp, err := r.Answer()
		rows = append(rows, client.Record(j.req, resp, err, now, 0))
		if err != nil {
			continue
		}
		e := d.entry(client, j, resp, remote.ID)
		costs[j.key] = e.CostUSD
		if fault := d.overReported(j, resp); fault != nil {
			// Logged and counted, never cached: the run stops once the
			// batch is stored.
			d.failWith(fault)
			continue
		}
		entries = append(entries, e)
	}
	for k, j := range jobs {
		if !answered[k] {
			rows = append(rows, client.Record(j.req, llm.Response{}, fmt.Errorf("batch %s ended %s without an answer to it", remote.ID, remote.Status), now, 0))
		}
	}
	if remote.Status != llm.BatchCompleted {
		d.opts.Log.Warn("batch ended without completing; its unanswered requests go in the next run's batch",
			"batch", remote.ID, "status", remote.Status)
	}
	b.Status, b.OutputFileID, b.ErrorFileID = kb.DistillBatchDownloaded, remote.OutputFileID, remote.ErrorFileID
	return d.withStore(ctx, dir, func() error {
		return d.tx(ctx, func(ctx context.Context) error {
			if err := kb.AppendLLMCalls(d.w, rows); err != nil {
				return err
			}
			if err := kb.AppendDistillCache(ctx, d.w, entries); err != nil {
				return err
			}
			if err := kb.SettleDistillBatch(ctx, d.w.Conn, b.ID, costs); err != nil {
				return err
			}
			return kb.UpdateDistillBatch(ctx, d.w.Conn, *b)
		})
	})
}

// batchJobs reads a batch's requests back from its input file, by custom
// id (the request key), as the jobs that sent them.
func batchJobs(b *kb.DistillBatch) (map[string]*job, error) {
	out := map[string]*job{}
	sc := bufio.NewScanner(bytes.NewReader([]byte(b.Input)))
	sc.Buffer(make([]byte, 1<<20), batchMaxBytes)
	for i := 0; sc.Scan(); i++ {
		var line llm.BatchLine
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return nil, fmt.Errorf("batch %s: input line %d: %w", b.ID, i+1, err)
		}
		req := llm.Request{TaskID: callType + ":" + line.CustomID, CallType: callType}
		if i < len(b.Stages) {
			req.StageName = b.Stages[i]
		}
		for _, m := range line.Body.Messages {
			switch m.Role {
			case "system":
				req.System = m.Content
			case "user":
				req.Prompt = m.Content
			}
		}
		out[line.CustomID] = &job{req: req, body: line.Body, key: line.CustomID, stage: req.StageName}
	}
	return out, sc.Err()
}
