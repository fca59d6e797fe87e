package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"
)

// provider makes one attempt: one HTTP request. It returns a *failure for an
// HTTP answer it classified (error status, malformed body) and any other
// error as it came (the client classifies those in one place).
type provider interface {
	send(ctx context.Context, req Request) (Response, error)
}

// client is the Client New returns: the resilience shared by every provider
// (limiter, per-attempt timeout, retries, error shaping, key redaction)
// around one provider.
type client struct {
	cfg      ModelConfig
	provider provider
	http     *http.Client
	ownHTTP  bool
	limit    limiter
	now      func() time.Time
	sleep    func(context.Context, time.Duration) error
	jitter   func() float64
	secret   string // the API key, kept only to redact it from errors
	sendOnce bool   // WithSendOnce: Complete does not resend an unanswered attempt
	closed   atomic.Bool
	cool     *cooldown // shared by every client of this provider and model
}

// New builds the client for cfg. It checks the provider and the rest of the
// config, and reads the API key from the environment, so a misconfiguration
// fails here (errors wrap ErrInvalidConfig) rather than on the first call.
func New(cfg ModelConfig, opts ...Option) (Client, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	cfg, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	key, err := cfg.apiKey(o.lookupEnv)
	if err != nil {
		return nil, err
	}
	c := &client{
		cfg:      cfg,
		limit:    newLimiter(cfg.MaxConcurrency),
		now:      o.now,
		sleep:    o.sleep,
		jitter:   defaultJitter,
		secret:   key,
		sendOnce: o.sendOnce,
		cool:     cooldownOf(cfg),
		http:     o.httpClient,
	}
	if c.http == nil {
		c.http, c.ownHTTP = newHTTPClient(cfg.MaxConcurrency), true
	}
	switch cfg.Provider {
	case ProviderOllama:
		c.provider = &ollama{c: c}
	default:
		c.provider = newOpenAI(c, key)
	}
	return c, nil
}

// newHTTPClient pools connections for the client's own use. It sets no
// Timeout: each attempt carries its own deadline in its context.
func newHTTPClient(conns int) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = max(conns, 2)
	return &http.Client{Transport: t}
}

func (c *client) Complete(ctx context.Context, req Request) (Response, error) {
	if c.closed.Load() {
		return Response{}, c.fail(&failure{err: &kindError{kind: ErrClosed, msg: "client closed"}}, 0)
	}
	if err := c.limit.acquire(ctx); err != nil {
		return Response{}, c.stopped(err, 0, 0)
	}
	defer c.limit.release()
	resp, n, err := retrying(ctx, c, !c.sendOnce, func(actx context.Context) (Response, error) {
		start := c.now()
		resp, err := c.provider.send(actx, req)
		if err == nil {
			resp.Latency = c.now().Sub(start)
			resp.Provider = c.cfg.Provider
			if resp.Model == "" {
				resp.Model = c.cfg.Model
			}
		}
		return resp, err
	})
	if err != nil {
		return Response{}, err
	}
	resp.Attempts = n
	return resp, nil
}

// retrying makes op's attempts by the client's policy: each under the
// per-attempt timeout, retried with backoff on retryable failures (an
// unanswered one only when resendUnanswered), after the shared 429
// cooldown of the provider and model. op returns a *failure for an HTTP
// answer it classified, and any other error as it came. It returns the
// value, the attempts made and an *Error.
func retrying[T any](ctx context.Context, c *client, resendUnanswered bool, op func(ctx context.Context) (T, error)) (T, int, error) {
	var zero T
	var waited time.Time // the cooldown this call has already waited out
	for n := 1; ; n++ {
		if until := c.cool.deadline(); until.After(waited) {
			if d := until.Sub(c.now()); d > 0 {
				if err := c.sleep(ctx, d); err != nil {
					if ctx.Err() != nil {
						err = ctx.Err()
					}
					return zero, n - 1, c.stopped(err, n-1, 0)
				}
			}
			waited = until
		}
		v, f := attempt(ctx, c, op)
		if f == nil {
			return v, n, nil
		}
		if err := ctx.Err(); err != nil {
			return zero, n, c.stopped(err, n, f.status)
		}
		if !f.retryable || n > c.cfg.MaxRetries || f.unanswered && !resendUnanswered {
			return zero, n, c.fail(f, n)
		}
		wait := backoff(n, f, c.jitter)
		if wait > maxRetryAfter {
			f.err = tooLong(f)
			return zero, n, c.fail(f, n)
		}
		if f.status == http.StatusTooManyRequests && f.hasRetryAfter {
			// Every other call to this provider and model waits too; this
			// one waits below, so it does not wait twice.
			waited = c.now().Add(wait)
			c.cool.extend(waited)
		}
		if err := c.sleep(ctx, wait); err != nil {
			if ctx.Err() != nil {
				err = ctx.Err()
			}
			return zero, n, c.stopped(err, n, f.status)
		}
	}
}

// attempt makes one request under the per-attempt timeout.
func attempt[T any](ctx context.Context, c *client, op func(ctx context.Context) (T, error)) (T, *failure) {
	var zero T
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	v, err := op(actx)
	if err == nil {
		return v, nil
	}
	var f *failure
	switch {
	case ctx.Err() != nil:
		return zero, &failure{err: ctx.Err()} // the caller gets ctx.Err()
	case errors.As(err, &f):
		return zero, f
	case errors.Is(actx.Err(), context.DeadlineExceeded):
		return zero, c.timeoutFailure(err)
	default:
		return zero, c.transportFailure(err)
	}
}

func (c *client) fail(f *failure, attempts int) error {
	return c.redact(&Error{Provider: c.cfg.Provider, Model: c.cfg.Model, StatusCode: f.status,
		Retryable: f.retryable, Attempts: attempts, Err: f.err})
}

// stopped is the error when the caller's context ended: its chain holds
// ctx.Err() itself, so errors.Is(err, context.Canceled) works.
func (c *client) stopped(ctxErr error, attempts, status int) error {
	return &Error{Provider: c.cfg.Provider, Model: c.cfg.Model, StatusCode: status,
		Attempts: attempts, Err: ctxErr}
}

func (c *client) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	if c.ownHTTP {
		c.http.CloseIdleConnections()
	}
	return nil
}

// String keeps fmt from printing the fields (the API key among them).
func (c *client) String() string {
	return fmt.Sprintf("llm.Client(%s %s at %s)", c.cfg.Provider, c.cfg.Model, c.cfg.BaseURL)
}

// GoString does the same for %#v.
func (c *client) GoString() string { return c.String() }
