package distill

import (
	"context"

	"github.com/cra-dev/cra/kb"
)

// dryRun says what a run would do: the items it would answer from the
// cache (FromCache), and for the requests it would send, their number,
// their expected prompt and completion tokens and cost (with the batch
// discount under --batch), and the most they could cost. Nothing is
// called or written.
func dryRun(ctx context.Context, w kb.Writer, opts Options) (*Summary, error) {
	d := newDistiller(opts)
	d.w = w
	sel, err := selectionOf(ctx, w.Conn, opts)
	if err != nil {
		return nil, err
	}
	err = d.eachWindow(ctx, sel, true, func(jobs []*job) error {
		cache, err := kb.LoadDistillCache(ctx, w.Conn, keysOf(jobs))
		if err != nil {
			return err
		}
		hits, misses := cached(jobs, cache)
		for _, j := range hits {
			d.count(j.stage, func(s *StageSummary) { s.FromCache += len(j.items) })
		}
		for _, j := range misses {
			prompt := estimatePrompt(j.body)
			completion := min(j.expect(), boundCompletion(j.body))
			cost, most := fromNanos(d.price.cost(prompt, 0, completion)), fromNanos(d.price.upper(j.body))
			d.count(j.stage, func(s *StageSummary) {
				if s.Estimate == nil {
					s.Estimate = &Estimate{}
				}
				s.Estimate.Calls++
				s.Estimate.PromptTokens += prompt
				s.Estimate.CompletionTokens += completion
				s.Estimate.CostUSD += cost
				s.Estimate.MaxCostUSD += most
			})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	spent, err := kb.DistillSpent(ctx, w.Conn, opts.Name)
	if err != nil {
		return nil, err
	}
	d.fillMoney(spent)
	return d.sum, nil
}
