package llm

import (
	"fmt"
	"io"
	"net/http"
)

// Answer bounds: a model answer (the HTTP body) longer than its request's
// completion cap could make is refused before it is parsed, so a broken or
// hostile server cannot take the machine's memory or the store's disk
// with one answer. The cap is bytesPerToken bytes for each token of
// max_tokens (JSON escaping and a thinking text included), at least
// minAnswerBytes and at most MaxAnswerBytes.
const (
	bytesPerToken  = 64
	minAnswerBytes = 256 << 10
	// MaxAnswerBytes is the ceiling whatever max_tokens a config asks
	// for: 65,536 tokens at bytesPerToken, some 16 times the longest
	// answer a model of today writes. An answer is copied several times
	// on its way to the stores (decoded, masked, logged, put in the
	// session), so this ceiling is what keeps a run under its 300 MB
	// target when a model with max_tokens = 10000000 answers 40 MB.
	MaxAnswerBytes = 4 << 20
)

// answerLimit is the most bytes an answer to req may have.
func (cfg ModelConfig) answerLimit(req Request) int64 {
	return min(MaxAnswerBytes, max(minAnswerBytes, int64(cfg.maxTokens(req))*bytesPerToken))
}

// readAnswer reads body up to limit bytes; over is true when there was
// more (the rest is not read). limit 0 reads it all (a request through
// the hooked transport without an exchange limit: none in cra).
func readAnswer(body io.Reader, limit int64) (raw []byte, over bool, err error) {
	if limit <= 0 {
		raw, err = io.ReadAll(body)
		return raw, false, err
	}
	raw, err = io.ReadAll(io.LimitReader(body, limit+1))
	if int64(len(raw)) > limit {
		return raw[:limit], true, err
	}
	return raw, false, err
}

// tooLarge is the failure of an answer over limit bytes: an unusable
// answer (as malformed ones are), its start logged with its size.
func (c *client) tooLarge(start []byte, req Request) *failure {
	return &failure{status: http.StatusOK, err: &kindError{kind: ErrMalformedResponse,
		msg: fmt.Sprintf("answer from %s refused: over %d bytes, the most an answer of max_tokens %d may take: %q",
			c.cfg.BaseURL, c.cfg.answerLimit(req), c.cfg.maxTokens(req), shorten(string(start[:min(len(start), 1024)])))}}
}
