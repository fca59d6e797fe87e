package llm

import (
	"context"
	"net/http"
	"os"
	"time"
)

// Option changes how New builds a client; tests use them to inject fakes.
type Option func(*options)

type options struct {
	httpClient *http.Client
	sendOnce   bool
	now        func() time.Time
	sleep      func(ctx context.Context, d time.Duration) error
	lookupEnv  func(string) (string, bool)
}

func defaultOptions() options {
	return options{now: time.Now, sleep: sleepCtx, lookupEnv: os.LookupEnv}
}

// WithHTTPClient makes the client send its requests through hc (which is
// not modified; its Transport is wrapped in a copy). Default: a client of
// its own with a pooled transport, closed by Close.
func WithHTTPClient(hc *http.Client) Option {
	return func(o *options) { o.httpClient = hc }
}

// WithSendOnce makes Complete send a request again only after an attempt
// that was answered (408, 429, 5xx: not billed). An attempt that may have
// reached the server and brought no answer — it timed out, or lost its
// connection after the request went out — ends the call with its error
// (Retryable), since a paid API may have billed it: the caller, who
// reserved what one send can cost, decides whether to pay for another.
// Batch API operations retry as before.
func WithSendOnce() Option {
	return func(o *options) { o.sendOnce = true }
}

// WithClock sets the clock used for latency and for Retry-After dates.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

// WithSleep sets how the client waits between attempts. sleep must return
// ctx.Err() as soon as ctx is done; tests pass one that records d and
// returns at once.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(o *options) { o.sleep = sleep }
}

// WithLookupEnv sets how the API key variable is read (default
// os.LookupEnv).
func WithLookupEnv(lookup func(string) (string, bool)) Option {
	return func(o *options) { o.lookupEnv = lookup }
}

// sleepCtx waits d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
