package llm

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"unicode/utf8"
)

// A 2xx whose body is not the expected JSON is NOT retried: servers that
// send garbage with a 200 (a proxy's HTML page, a wrong base URL, a server
// bug) do so every time, and a retry only doubles the cost. A body cut short
// by a dropped connection is a different case — the read fails before any
// parsing — and is retried as a connection error.

// statusFailure classifies an HTTP error answer. detail is the server's own
// message (already extracted from its error body).
func (c *client) statusFailure(status int, header http.Header, detail string, cause error) *failure {
	f := &failure{status: status}
	f.retryAfter, f.hasRetryAfter = parseRetryAfter(header, c.now())
	where := fmt.Sprintf("HTTP %d from %s", status, c.cfg.BaseURL)
	if d := shorten(detail); d != "" {
		where += ": " + d
	}
	var kind error
	var msg string
	switch {
	case status == http.StatusTooManyRequests:
		kind, msg, f.retryable = ErrRateLimited, "rate limited: "+where, true
	case status >= 500:
		kind, msg, f.retryable = ErrServer, "server error: "+where, true
	case status == http.StatusRequestTimeout:
		kind, msg, f.retryable = ErrTimeout, "server timed out reading the request: "+where, true
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		kind, msg = ErrAuth, "credentials refused: "+where
		if c.cfg.APIKeyEnv != "" {
			msg += fmt.Sprintf(" (check the API key in $%s)", c.cfg.APIKeyEnv)
		}
	default:
		kind, msg = ErrRejected, "request rejected: "+where
	}
	f.err = &kindError{kind: kind, msg: msg, cause: cause}
	return f
}

// malformed reports a 2xx body that is not what the provider sends.
func (c *client) malformed(body []byte, cause error) *failure {
	return &failure{status: http.StatusOK, err: &kindError{kind: ErrMalformedResponse,
		msg: fmt.Sprintf("malformed response from %s (%v): %q", c.cfg.BaseURL, cause, shorten(string(body))), cause: cause}}
}

func (c *client) timeoutFailure(cause error) *failure {
	return &failure{retryable: true, unanswered: true, err: &kindError{kind: ErrTimeout,
		msg: fmt.Sprintf("no answer from %s within %v", c.cfg.BaseURL, c.cfg.Timeout), cause: cause}}
}

// transportFailure classifies an error that came without an HTTP answer.
func (c *client) transportFailure(err error) *failure {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var recordErr tls.RecordHeaderError
	var urlErr *url.Error
	var opErr *net.OpError
	unreachable := func(retryable bool, msg string) *failure {
		return &failure{retryable: retryable, err: &kindError{kind: ErrUnreachable, msg: msg, cause: err}}
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return unreachable(true, c.cannotReach())
	case errors.As(err, &dnsErr):
		return unreachable(dnsErr.IsTemporary || dnsErr.IsTimeout,
			fmt.Sprintf("cannot resolve the host of %s: %v", c.cfg.BaseURL, dnsErr))
	case errors.As(err, &certErr) || errors.As(err, &unknownAuth) || errors.As(err, &hostErr) || errors.As(err, &recordErr):
		return unreachable(false, fmt.Sprintf("TLS with %s failed (is the scheme of base_url right?): %v", c.cfg.BaseURL, err))
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.As(err, &opErr):
		f := unreachable(true, fmt.Sprintf("connection to %s lost: %v", c.cfg.BaseURL, err))
		// Lost while connecting: the request never went out.
		f.unanswered = opErr == nil || opErr.Op != "dial"
		return f
	case errors.As(err, &urlErr):
		return unreachable(false, fmt.Sprintf("request to %s failed: %v", c.cfg.BaseURL, err))
	default:
		return &failure{err: &kindError{kind: ErrRejected, msg: fmt.Sprintf("cannot send the request: %v", err), cause: err}}
	}
}

// cannotReach says what to do when nothing listens at BaseURL.
func (c *client) cannotReach() string {
	switch c.cfg.Provider {
	case ProviderOllama:
		return fmt.Sprintf("cannot reach ollama at %s: is `ollama serve` running?", c.cfg.BaseURL)
	case ProviderOpenAICompat:
		return fmt.Sprintf("cannot reach the openai_compat server at %s: is vLLM or llama-server running and listening there?", c.cfg.BaseURL)
	default:
		return fmt.Sprintf("cannot reach %s: check the network and base_url", c.cfg.BaseURL)
	}
}

// shorten makes a server message fit on one log line.
func shorten(s string) string {
	const limit = 300
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
