package distill

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/cra-dev/cra/curate"
	"github.com/cra-dev/cra/internal/secrets"
	"github.com/cra-dev/cra/kb"
)

// judge verifies a cached answer for each item of j and returns their
// outcomes, counting the answer as the cache's (fromCache: it was there
// before this run asked) or the teacher's: the verified ones carry their training example (the
// student's prompt, the answer as its parser reads it back, credentials
// redacted or the example left out per [curate] secrets).
func (d *distiller) judge(j *job, e kb.DistillCacheEntry, fromCache bool) []kb.DistillOutcome {
	out := make([]kb.DistillOutcome, 0, len(j.items))
	now := time.Now().UTC()
	for _, it := range j.items {
		v := verify(it.stage, it.task, e.Response, d.opts.Verify)
		o := kb.DistillOutcome{Name: d.opts.Name, ItemID: it.id, Source: it.source, Stage: it.stage,
			StudentCallID: it.student, Key: j.key, CallTaskID: e.CallTaskID, RunID: d.runID, RepoPath: it.repo,
			Commit: it.commit, Split: it.split, Verified: v.ok, Checked: v.checked, Reason: v.reason, Score: v.score, At: now}
		if it.task != nil {
			o.TaskID = it.task.ID
		}
		if v.ok {
			msgs := []kb.Message{{Role: "system", Content: it.system}, {Role: "user", Content: it.user}, {Role: "assistant", Content: v.answer}}
			if _, keep := secrets.Apply(d.opts.Curate.Secrets, &msgs[0].Content, &msgs[1].Content, &msgs[2].Content); !keep {
				msgs = nil
				o.Reason += "; no example: it holds a credential ([curate] secrets = drop)"
			}
			if msgs != nil {
				o.Messages, o.ExampleID = msgs, curate.ExampleID(d.opts.Name, it.id)
				o.PromptTokens = d.opts.Budget.Estimate(msgs[0].Content) + d.opts.Budget.Estimate(msgs[1].Content)
				o.CompletionTokens = d.opts.Budget.Estimate(msgs[2].Content)
			}
		}
		d.count(it.stage, func(s *StageSummary) {
			if v.ok {
				s.Verified++
			} else {
				s.Rejected++
			}
			if fromCache {
				s.FromCache++
			} else {
				s.FromTeacher++
			}
		})
		out = append(out, o)
	}
	return out
}

// outcomesPerTx bounds one transaction of outcome rows, as curate bounds
// one of example rows.
const outcomesPerTx = 2000

// replay judges the jobs answered in cache on every core and stores their
// outcomes in bounded transactions; fromCache counts the answers as the
// cache's (not when they came with the batches this run collected).
func (d *distiller) replay(ctx context.Context, jobs []*job, cache map[string]kb.DistillCacheEntry, fromCache bool) error {
	if len(jobs) == 0 {
		return nil
	}
	d.opts.Progress.Phase("replay cached answers", int64(len(jobs)))
	results := make([][]kb.DistillOutcome, len(jobs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = d.judge(jobs[i], cache[jobs[i].key], fromCache)
			}
		}()
	}
	for i := range jobs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	var batch []kb.DistillOutcome
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := d.tx(ctx, func(ctx context.Context) error { return kb.AppendDistillOutcomes(ctx, d.w, batch) })
		batch = batch[:0]
		return err
	}
	for _, r := range results {
		batch = append(batch, r...)
		d.opts.Progress.Add(1)
		if len(batch) >= outcomesPerTx {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return ctx.Err()
}

// eachUncached walks sel a window at a time: the requests the cache has
// answered are judged from it (replay), and fn gets the others, the
// requests left to send, in order.
func (d *distiller) eachUncached(ctx context.Context, sel *selection, fn func(misses []*job) error) error {
	return d.eachWindow(ctx, sel, true, func(jobs []*job) error {
		cache, err := kb.LoadDistillCache(ctx, d.w.Conn, keysOf(jobs))
		if err != nil {
			return err
		}
		hits, misses := cached(jobs, cache)
		if err := d.replay(ctx, hits, cache, true); err != nil {
			return err
		}
		return fn(misses)
	})
}

// cached splits jobs into those answered in the cache and the rest.
func cached(jobs []*job, cache map[string]kb.DistillCacheEntry) (hits, misses []*job) {
	for _, j := range jobs {
		if _, ok := cache[j.key]; ok {
			hits = append(hits, j)
		} else {
			misses = append(misses, j)
		}
	}
	return hits, misses
}

func keysOf(jobs []*job) []string {
	keys := make([]string, len(jobs))
	for i, j := range jobs {
		keys[i] = j.key
	}
	return keys
}
