package llm

import "context"

// limiter bounds the calls in progress on one client. A call holds its slot
// through its retries and backoff: when the server is rate limiting or
// failing, new calls queue here instead of piling onto it.
type limiter chan struct{}

func newLimiter(n int) limiter { return make(limiter, n) }

// acquire waits for a slot or for ctx, whichever comes first.
func (l limiter) acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case l <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l limiter) release() { <-l }
