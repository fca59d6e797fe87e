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
// minAnswerBytes.
const (
	bytesPerToken  = 64
	minAnswerBytes = 256 << 10
)

// answerLimit is the most bytes an answer to req may have.
func (cfg ModelConfig) answerLimit(req Request) int64 {
	return max(minAnswerBytes, int64(cfg.maxTokens(req))*bytesPerToken)
}

// readAnswer reads body up to limit bytes; over is true when there was
// more (the rest is not read). limit 0 reads it all: a Batch API
// operation, whose files hold many answers (not bounded yet).
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
			c.cfg.BaseURL, c.cfg.answerLimit(req), c.cfg.maxTokens(req), shorten(string(start)))}}
}
