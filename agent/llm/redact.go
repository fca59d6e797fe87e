package llm

import (
	"errors"
	"strings"

	"github.com/cra-dev/cra/internal/secrets"
)

// redacted replaces the API key wherever it shows up.
const redacted = "[REDACTED]"

// kinds are the sentinels a redacted error keeps, so errors.Is still works.
var kinds = []error{ErrRateLimited, ErrServer, ErrUnreachable, ErrTimeout, ErrModelNotFound,
	ErrAuth, ErrRejected, ErrMalformedResponse, ErrClosed}

// redact keeps the API key out of e. Servers do echo keys back ("Incorrect
// API key provided: sk-...") and a cause deep in the chain could carry one,
// so when the key appears anywhere in the chain, the chain is replaced by one
// message with the key masked, keeping only the kind of failure.
func (c *client) redact(e *Error) *Error {
	if c.secret == "" || !chainContains(e.Err, c.secret) {
		return e
	}
	var kind error
	for _, k := range kinds {
		if errors.Is(e.Err, k) {
			kind = k
			break
		}
	}
	e.Err = &kindError{kind: kind, msg: strings.ReplaceAll(e.Err.Error(), c.secret, redacted)}
	return e
}

// chainContains reports whether s appears in the message of err or of any
// error it wraps.
func chainContains(err error, s string) bool {
	if err == nil {
		return false
	}
	if strings.Contains(err.Error(), s) {
		return true
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return chainContains(u.Unwrap(), s)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if chainContains(e, s) {
				return true
			}
		}
	}
	return false
}

// outbound is a prompt text as it may leave the machine for cfg's
// provider: to a remote_api provider (a third party) with every credential
// the [curate] secrets patterns know redacted, whatever stage sends it
// (solve, plan, eval, distill) and whatever file it quotes; to ollama and
// openai_compat servers, which the user runs, as it is. The logged row of
// a call holds the prompt as it was sent.
func (cfg ModelConfig) outbound(text string) string {
	if cfg.Provider != ProviderRemoteAPI {
		return text
	}
	return secrets.Redact(text)
}
