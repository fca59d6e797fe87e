package llm_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/fakellm"
)

func TestRetryAfterIsHonoured(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	forms := []struct {
		name, header string
		want         time.Duration
	}{
		{"seconds", "2", 2 * time.Second},
		{"http date", now.Add(5 * time.Second).Format(http.TimeFormat), 5 * time.Second},
		{"date in the past", now.Add(-time.Minute).Format(http.TimeFormat), 0},
	}
	for _, p := range providers {
		for _, form := range forms {
			for _, status := range []int{429, 503} {
				t.Run(p.name+"/"+form.name+"/"+http.StatusText(status), func(t *testing.T) {
					srv := fakellm.New(t, fakellm.Reply{Status: status, RetryAfter: form.header}, fakellm.Reply{Text: "after the wait"})
					c, s := newClient(t, config(p.name, srv), llm.WithClock(func() time.Time { return now }))
					resp, err := c.Complete(t.Context(), llm.Request{Prompt: "hi"})
					if err != nil {
						t.Fatalf("Complete: %v", err)
					}
					if resp.Text != "after the wait" || resp.Attempts != 2 || srv.Calls() != 2 {
						t.Errorf("response %+v after %d calls", resp, srv.Calls())
					}
					if got := s.got(); !slices.Equal(got, []time.Duration{form.want}) {
						t.Errorf("waited %v, want exactly [%v]", got, form.want)
					}
				})
			}
		}
	}
}

func TestRetryableFailuresRetriedToTheLimit(t *testing.T) {
	tests := []struct {
		status int
		kind   error
	}{
		{500, llm.ErrServer},
		{502, llm.ErrServer},
		{429, llm.ErrRateLimited},
	}
	for _, p := range providers {
		for _, tt := range tests {
			t.Run(p.name+"/"+http.StatusText(tt.status), func(t *testing.T) {
				const retries = 3
				srv := fakellm.New(t)
				srv.SetDefault(func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Status: tt.status} })
				cfg := config(p.name, srv)
				cfg.MaxRetries = retries
				c, s := newClient(t, cfg)

				_, err := c.Complete(t.Context(), llm.Request{Prompt: "hi"})
				e := asError(t, err)
				if e.Attempts != retries+1 || srv.Calls() != retries+1 {
					t.Errorf("attempts %d, server calls %d; want %d", e.Attempts, srv.Calls(), retries+1)
				}
				if e.StatusCode != tt.status || !e.Retryable || !errors.Is(err, tt.kind) {
					t.Errorf("error %+v: want status %d, retryable, kind %v", e, tt.status, tt.kind)
				}
				if e.Provider != p.name || e.Model != "qwen3:1.7b" {
					t.Errorf("error names %s %s", e.Provider, e.Model)
				}
				// Full jitter: wait n is in [0, 500ms·2^(n-1)).
				waits := s.got()
				if len(waits) != retries {
					t.Fatalf("waited %d times, want %d", len(waits), retries)
				}
				for i, w := range waits {
					if ceiling := 500 * time.Millisecond << i; w < 0 || w >= ceiling {
						t.Errorf("wait %d = %v, want in [0, %v)", i+1, w, ceiling)
					}
				}
			})
		}
	}
}

func TestZeroRetries(t *testing.T) {
	srv := fakellm.New(t, fakellm.Reply{Status: 503})
	cfg := config(llm.ProviderOllama, srv)
	cfg.MaxRetries = 0
	c, s := newClient(t, cfg)
	_, err := c.Complete(t.Context(), llm.Request{Prompt: "hi"})
	if e := asError(t, err); e.Attempts != 1 || !e.Retryable || len(s.got()) != 0 {
		t.Errorf("error %+v, waits %v; want one attempt, no wait", e, s.got())
	}
}

func TestNotRetried(t *testing.T) {
	tests := []struct {
		name      string
		providers []string
		reply     fakellm.Reply
		kind      error
		status    int
		msg       string
	}{
		{"400", nil, fakellm.Reply{Status: 400, Error: "prompt too long"}, llm.ErrRejected, 400, "prompt too long"},
		{"422", nil, fakellm.Reply{Status: 422}, llm.ErrRejected, 422, "HTTP 422"},
		{"401", nil, fakellm.Reply{Status: 401, Error: "bad key"}, llm.ErrAuth, 401, "credentials refused"},
		{"malformed 200", nil, fakellm.Reply{Malformed: true}, llm.ErrMalformedResponse, 200, "malformed response"},
		// 8 MB where 256 tokens make at most 16 KB: refused unread, as unusable.
		{"answer too large", nil, fakellm.Reply{Text: strings.Repeat("x", 8<<20)}, llm.ErrMalformedResponse, 200,
			"answer from URL refused: over 262144 bytes, the most an answer of max_tokens 256 may take"},
		{"ollama model not found", []string{llm.ProviderOllama}, fakellm.Reply{Status: 404}, llm.ErrModelNotFound, 404,
			"model qwen3:1.7b not found on URL — run `ollama pull qwen3:1.7b`"},
		{"adapter not served", []string{llm.ProviderOpenAICompat, llm.ProviderRemoteAPI}, fakellm.Reply{Status: 404},
			llm.ErrModelNotFound, 404, "model qwen3:1.7b is not served at URL"},
	}
	for _, p := range providers {
		for _, tt := range tests {
			if tt.providers != nil && !slices.Contains(tt.providers, p.name) {
				continue
			}
			t.Run(p.name+"/"+tt.name, func(t *testing.T) {
				srv := fakellm.New(t, tt.reply)
				c, s := newClient(t, config(p.name, srv))
				_, err := c.Complete(t.Context(), llm.Request{Prompt: "hi"})
				e := asError(t, err)
				if e.Attempts != 1 || srv.Calls() != 1 || len(s.got()) != 0 {
					t.Errorf("attempts %d, calls %d, waits %v; want a single attempt", e.Attempts, srv.Calls(), s.got())
				}
				if e.Retryable || e.StatusCode != tt.status || !errors.Is(err, tt.kind) {
					t.Errorf("error %+v: want status %d, not retryable, kind %v", e, tt.status, tt.kind)
				}
				if want := strings.ReplaceAll(tt.msg, "URL", p.baseURL(srv)); !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			})
		}
	}
}

func TestOllamaWrongPathHint(t *testing.T) {
	srv := fakellm.New(t)
	cfg := config(llm.ProviderOllama, srv)
	cfg.BaseURL = srv.OpenAIURL() // .../v1/api/chat does not exist
	c, _ := newClient(t, cfg)
	_, err := c.Complete(t.Context(), llm.Request{Prompt: "hi"})
	if errors.Is(err, llm.ErrModelNotFound) || !strings.Contains(err.Error(), "without /v1") {
		t.Errorf("error = %v, want a hint about base_url", err)
	}
}

func TestRetryAfterTooLongGivesUp(t *testing.T) {
	srv := fakellm.New(t, fakellm.Reply{Status: 429, RetryAfter: "3600"})
	c, s := newClient(t, config(llm.ProviderOpenAICompat, srv))
	_, err := c.Complete(t.Context(), llm.Request{Prompt: "hi"})
	e := asError(t, err)
	if e.Attempts != 1 || !e.Retryable || !errors.Is(err, llm.ErrRateLimited) || len(s.got()) != 0 {
		t.Errorf("error %+v, waits %v; want to give up at once, retryable", e, s.got())
	}
	if !strings.Contains(err.Error(), "retry after") {
		t.Errorf("error %q does not say why it gave up", err)
	}
}

func TestDroppedConnectionRetried(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			srv := fakellm.New(t, fakellm.Reply{Drop: true}, fakellm.Reply{Text: "ok"})
			c, s := newClient(t, config(p.name, srv))
			resp, err := c.Complete(t.Context(), llm.Request{Prompt: "hi"})
			if err != nil || resp.Attempts != 2 || len(s.got()) != 1 {
				t.Errorf("resp %+v, err %v, waits %v; want success on the second attempt", resp, err, s.got())
			}
		})
	}
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now
	hints := map[string]string{
		llm.ProviderOllama:       "cannot reach ollama at " + addr + ": is `ollama serve` running?",
		llm.ProviderOpenAICompat: "cannot reach the openai_compat server at " + addr + "/v1: is vLLM or llama-server running",
		llm.ProviderRemoteAPI:    "cannot reach " + addr + "/v1: check the network and base_url",
	}
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			cfg := llm.ModelConfig{Provider: p.name, Model: "m", BaseURL: addr, MaxRetries: 2, APIKeyEnv: testKeyEnv}
			if p.name != llm.ProviderOllama {
				cfg.BaseURL += "/v1"
			}
			c, s := newClient(t, cfg)
			_, err := c.Complete(t.Context(), llm.Request{Prompt: "hi"})
			e := asError(t, err)
			if !errors.Is(err, llm.ErrUnreachable) || !e.Retryable || e.Attempts != 3 || e.StatusCode != 0 || len(s.got()) != 2 {
				t.Errorf("error %+v, waits %v; want unreachable after 3 attempts", e, s.got())
			}
			if !strings.Contains(err.Error(), hints[p.name]) {
				t.Errorf("error %q does not say %q", err, hints[p.name])
			}
		})
	}
}

func TestAttemptTimeout(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			srv := fakellm.New(t, fakellm.Reply{Delay: time.Minute}, fakellm.Reply{Text: "in time"})
			cfg := config(p.name, srv)
			cfg.Timeout = 100 * time.Millisecond
			c, _ := newClient(t, cfg)
			resp, err := c.Complete(t.Context(), llm.Request{Prompt: "hi"})
			if err != nil || resp.Text != "in time" || resp.Attempts != 2 {
				t.Errorf("resp %+v, err %v; want the slow attempt cut and retried", resp, err)
			}

			srv.SetDefault(func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Delay: time.Minute} })
			cfg.MaxRetries = 1
			c, _ = newClient(t, cfg)
			_, err = c.Complete(t.Context(), llm.Request{Prompt: "hi"})
			if e := asError(t, err); !errors.Is(err, llm.ErrTimeout) || !e.Retryable || e.Attempts != 2 {
				t.Errorf("error %+v; want ErrTimeout after 2 attempts", e)
			}
		})
	}
}

func TestCallerDeadlineIsNotRetried(t *testing.T) {
	srv := fakellm.New(t, fakellm.Reply{Delay: time.Minute})
	c, s := newClient(t, config(llm.ProviderOllama, srv))
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_, err := c.Complete(ctx, llm.Request{Prompt: "hi"})
	if e := asError(t, err); !errors.Is(err, context.DeadlineExceeded) || e.Attempts != 1 || e.Retryable || len(s.got()) != 0 {
		t.Errorf("error %+v (%v); want the caller's deadline after one attempt", e, err)
	}
}

// cancelAfter cancels the returned context once the server has seen n calls
// and then settle has passed; it returns when it cancelled.
func cancelAfter(t *testing.T, srv *fakellm.Server, n int, settle time.Duration) (context.Context, <-chan time.Time) {
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	at := make(chan time.Time, 1)
	go func() {
		deadline := time.Now().Add(5 * time.Second)
		for srv.Calls() < n && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(settle)
		at <- time.Now()
		cancel()
	}()
	return ctx, at
}

func TestCancellationIsPrompt(t *testing.T) {
	tests := []struct {
		name  string
		reply fakellm.Reply
	}{
		// A real 30s Retry-After: the client is asleep in backoff when cancelled.
		{"mid backoff", fakellm.Reply{Status: 429, RetryAfter: "30"}},
		{"mid request", fakellm.Reply{Delay: time.Hour}},
	}
	for _, p := range providers {
		for _, tt := range tests {
			t.Run(p.name+"/"+tt.name, func(t *testing.T) {
				srv := fakellm.New(t, tt.reply)
				cfg := config(p.name, srv)
				c, err := llm.New(cfg, llm.WithLookupEnv(lookupKey)) // real sleep
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				ctx, cancelled := cancelAfter(t, srv, 1, 50*time.Millisecond)
				_, err = c.Complete(ctx, llm.Request{Prompt: "hi"})
				returned := time.Now()
				if d := returned.Sub(<-cancelled); d > 100*time.Millisecond {
					t.Errorf("returned %v after cancel, want < 100ms", d)
				}
				if e := asError(t, err); !errors.Is(err, context.Canceled) || e.Attempts != 1 || e.Retryable {
					t.Errorf("error %+v; want context.Canceled after one attempt", e)
				}
			})
		}
	}
}

func TestCancelWhileWaitingForASlot(t *testing.T) {
	srv := fakellm.New(t)
	srv.SetDefault(func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Delay: time.Hour} })
	cfg := config(llm.ProviderOllama, srv)
	cfg.MaxConcurrency = 1
	c, _ := newClient(t, cfg)

	hold, release := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = c.Complete(hold, llm.Request{Prompt: "holds the only slot"})
	}()
	defer func() { release(); <-done }()
	srv.WaitForCalls(t, 1, 5*time.Second) // the slot is taken

	ctx, cancelled := cancelAfter(t, srv, 1, 50*time.Millisecond)
	_, err := c.Complete(ctx, llm.Request{Prompt: "waits"})
	if d := time.Since(<-cancelled); d > 100*time.Millisecond {
		t.Errorf("returned %v after cancel, want < 100ms", d)
	}
	if e := asError(t, err); !errors.Is(err, context.Canceled) || e.Attempts != 0 || srv.Calls() != 1 {
		t.Errorf("error %v (attempts %d), %d calls; want Canceled before any attempt", e, e.Attempts, srv.Calls())
	}
}

func TestConcurrencyLimit(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			const limit, calls = 3, 12
			srv := fakellm.New(t)
			srv.SetDefault(func(r fakellm.Request) fakellm.Reply {
				return fakellm.Reply{Text: r.Messages[0].Content, Delay: 30 * time.Millisecond}
			})
			cfg := config(p.name, srv)
			cfg.MaxConcurrency = limit
			c, _ := newClient(t, cfg)

			errs := make(chan error, calls)
			for range calls {
				go func() {
					_, err := c.Complete(t.Context(), llm.Request{Prompt: "x"})
					errs <- err
				}()
			}
			for range calls {
				if err := <-errs; err != nil {
					t.Error(err)
				}
			}
			if got := srv.MaxInFlight(); got > limit || got < 2 {
				t.Errorf("max requests in flight = %d, want 2..%d", got, limit)
			}
			if srv.Calls() != calls {
				t.Errorf("server saw %d calls, want %d", srv.Calls(), calls)
			}
		})
	}
}

// A 429 with Retry-After cools the provider and model down for every call:
// another client of the same model waits it out before its first attempt,
// and the call that got it waits once, not twice.
func TestRateLimitCoolsDownEveryCallOfTheModel(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	clock := llm.WithClock(func() time.Time { return now })
	srv := fakellm.New(t, fakellm.Reply{Status: 429, RetryAfter: "3"}, fakellm.Reply{Text: "first"}, fakellm.Reply{Text: "second"})
	cfg := config(llm.ProviderOllama, srv)
	a, sa := newClient(t, cfg, clock)
	if _, err := a.Complete(context.Background(), llm.Request{Prompt: "p"}); err != nil {
		t.Fatal(err)
	}
	if got := sa.got(); !slices.Equal(got, []time.Duration{3 * time.Second}) {
		t.Errorf("the rate-limited call waited %v, want [3s] once", got)
	}
	b, sb := newClient(t, cfg, clock)
	if _, err := b.Complete(context.Background(), llm.Request{Prompt: "p"}); err != nil {
		t.Fatal(err)
	}
	if got := sb.got(); !slices.Equal(got, []time.Duration{3 * time.Second}) {
		t.Errorf("another call of the same model waited %v, want the 3s cool-down", got)
	}
	other := cfg
	other.Model = "another:1b"
	srv.Enqueue(fakellm.Reply{Text: "other model"})
	c, sc := newClient(t, other, clock)
	if _, err := c.Complete(context.Background(), llm.Request{Prompt: "p"}); err != nil || len(sc.got()) != 0 {
		t.Errorf("another model waited %v (%v): the cool-down is per model", sc.got(), err)
	}
}

// WithSendOnce: an attempt that may have reached the server and brought no
// answer (timed out, connection dropped after the request went out) ends
// the call, retryable, after one send; answered failures (429, 503) and a
// connection that never opened are retried as always.
func TestSendOnceDoesNotResendAnUnansweredAttempt(t *testing.T) {
	tests := []struct {
		name     string
		first    fakellm.Reply
		attempts int   // server calls made
		kind     error // nil: the retry succeeds
	}{
		{"timed out", fakellm.Reply{Delay: time.Minute}, 1, llm.ErrTimeout},
		{"dropped", fakellm.Reply{Drop: true}, 1, llm.ErrUnreachable},
		{"429", fakellm.Reply{Status: 429, RetryAfter: "0"}, 2, nil},
		{"503", fakellm.Reply{Status: 503}, 2, nil},
	}
	for _, p := range providers {
		for _, tt := range tests {
			t.Run(p.name+"/"+tt.name, func(t *testing.T) {
				srv := fakellm.New(t, tt.first)
				srv.SetDefault(func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Text: "ok"} })
				cfg := config(p.name, srv)
				cfg.Timeout = 100 * time.Millisecond
				c, _ := newClient(t, cfg, llm.WithSendOnce())
				resp, err := c.Complete(t.Context(), llm.Request{Prompt: "hi"})
				if srv.Calls() != tt.attempts {
					t.Errorf("%d sends, want %d", srv.Calls(), tt.attempts)
				}
				if tt.kind == nil {
					if err != nil || resp.Text != "ok" {
						t.Errorf("resp %+v, err %v; want the answered failure retried", resp, err)
					}
					return
				}
				if e := asError(t, err); !errors.Is(err, tt.kind) || !e.Retryable || e.Attempts != 1 {
					t.Errorf("error %+v; want %v after one send, retryable", e, tt.kind)
				}
			})
		}
	}
	// A connection that never opened sent nothing: retried.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := "http://" + ln.Addr().String()
	ln.Close()
	c, _ := newClient(t, llm.ModelConfig{Provider: llm.ProviderRemoteAPI, Model: "m", BaseURL: addr + "/v1", MaxRetries: 2, APIKeyEnv: testKeyEnv},
		llm.WithSendOnce())
	_, err = c.Complete(t.Context(), llm.Request{Prompt: "hi"})
	if e := asError(t, err); !errors.Is(err, llm.ErrUnreachable) || e.Attempts != 3 {
		t.Errorf("connection refused: %+v; want 3 attempts", e)
	}
}
