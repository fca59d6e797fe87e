package llm

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Retry policy, shared by all providers:
//   - retried: 408, 429, 5xx, connection errors (refused, reset, EOF) and
//     attempts that ran past ModelConfig.Timeout — except, for a client
//     made WithSendOnce, a chat attempt that may have reached the server
//     and brought no answer (timed out, or its connection lost after the
//     request went out): a paid API may have billed it;
//   - not retried: other 4xx (the request is wrong; sending it again cannot
//     help), malformed 2xx bodies (see classify.go), TLS and DNS-not-found
//     errors, and anything after the caller's context ends;
//   - wait: the server's Retry-After when it sent one (seconds or HTTP
//     date), exactly; otherwise exponential backoff with full jitter,
//     uniform in [0, min(maxBackoff, baseBackoff·2^(n-1))) before retry n;
//   - a Retry-After longer than maxRetryAfter ends the call at once (still
//     marked Retryable) rather than holding a slot for that long.
const (
	baseBackoff   = 500 * time.Millisecond
	maxBackoff    = 30 * time.Second
	maxRetryAfter = 5 * time.Minute
)

// backoff is the wait before retry n (n >= 1) after failure f.
func backoff(n int, f *failure, jitter func() float64) time.Duration {
	if f.hasRetryAfter {
		return f.retryAfter
	}
	ceiling := maxBackoff
	if n <= 16 { // beyond, the shift would only overflow past the cap
		ceiling = min(maxBackoff, baseBackoff<<(n-1))
	}
	return time.Duration(jitter() * float64(ceiling))
}

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP date
// (RFC 9110 §10.2.3). A date in the past means "now".
func parseRetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(maxRetryAfter/time.Second)+1 {
			return maxRetryAfter + time.Second, true
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}

// tooLong reports a Retry-After the client will not wait for.
func tooLong(f *failure) error {
	return &kindError{kind: f.err, msg: fmt.Sprintf("%v; the server asks to retry after %v, more than the %v this client waits",
		f.err, f.retryAfter, maxRetryAfter)}
}

func defaultJitter() float64 { return rand.Float64() }
