package llm

import (
	"errors"
	"fmt"
	"time"
)

// Kinds of failure. Every error Complete returns is an *Error whose chain
// holds one of these (test with errors.Is), or context.Canceled /
// context.DeadlineExceeded when the caller's context ended.
var (
	// ErrRateLimited: the server answered 429 on the last attempt.
	ErrRateLimited = errors.New("rate limited")
	// ErrServer: the server answered 5xx on the last attempt.
	ErrServer = errors.New("server error")
	// ErrUnreachable: no HTTP answer — connection refused or reset, DNS, TLS.
	ErrUnreachable = errors.New("model server unreachable")
	// ErrTimeout: an attempt ran longer than ModelConfig.Timeout.
	ErrTimeout = errors.New("model call timed out")
	// ErrModelNotFound: the server does not have the model (or adapter).
	ErrModelNotFound = errors.New("model not found")
	// ErrAuth: the server refused the credentials (401, 403).
	ErrAuth = errors.New("not authorized")
	// ErrRejected: any other 4xx; the request itself is wrong.
	ErrRejected = errors.New("request rejected")
	// ErrMalformedResponse: a 2xx whose body is not the expected JSON.
	ErrMalformedResponse = errors.New("malformed response")
	// ErrClosed: Complete was called after Close.
	ErrClosed = errors.New("client closed")
	// ErrInvalidConfig: New refused the ModelConfig (a configuration error,
	// exit code 2 territory); never returned by Complete.
	ErrInvalidConfig = errors.New("invalid model config")
)

// Error is what Complete returns on failure.
type Error struct {
	Provider string
	Model    string
	// StatusCode is the HTTP status of the last attempt; 0 when there was no
	// HTTP answer (connection error, timeout, cancellation).
	StatusCode int
	// Retryable reports whether the last failure was of a kind worth trying
	// again later (429, 5xx, connection error, timeout), even though this call
	// has given up on it.
	Retryable bool
	// Attempts is the number of HTTP requests made (0 if none was).
	Attempts int
	Err      error
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s %s: %v", e.Provider, e.Model, e.Err)
	if e.Attempts > 1 {
		s += fmt.Sprintf(" (after %d attempts)", e.Attempts)
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// kindError gives a failure a message written for the user while keeping
// both its kind (one of the sentinels above) and its cause in the chain. The
// message is complete on its own: causes such as go-openai's errors repeat
// the status line, so their text is folded into msg where it helps.
type kindError struct {
	kind  error
	msg   string
	cause error
}

func (e *kindError) Error() string { return e.msg }

func (e *kindError) Unwrap() []error {
	var errs []error
	for _, err := range []error{e.kind, e.cause} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// failure is the outcome of one failed attempt, as the retry loop sees it.
// Providers return it (as an error) for HTTP answers they classified.
type failure struct {
	err       error // usually a *kindError
	status    int
	retryable bool
	// unanswered: the attempt may have reached the server and brought no
	// HTTP answer (it timed out, or its connection was lost after the
	// request went out), so a paid API may have billed it.
	unanswered bool
	// retryAfter is the server's Retry-After, when it sent one.
	retryAfter    time.Duration
	hasRetryAfter bool
}

func (f *failure) Error() string { return f.err.Error() }
