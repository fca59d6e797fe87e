package fakellm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// Billing makes the server a paid API: every chat answer it gives (live or
// in a batch) is charged at these prices, per million tokens in USD, and
// its usage reports the tokens charged. Errors, 429s and (unless
// ChargeCutOff) held requests the client gave up on are not charged.
type Billing struct {
	InputPerMillion, CachedInputPerMillion, OutputPerMillion float64
	// BatchDiscount is taken off every price of a batch request.
	BatchDiscount float64
	// Tokens counts the tokens of one message or answer; nil counts words.
	Tokens func(string) int
	// CacheSystem reports the system message's tokens as cached (and
	// charges them at CachedInputPerMillion) when an earlier charged
	// request had the same system message, as providers' prompt caches do
	// for a repeated prefix.
	CacheSystem bool
	// ChargeCutOff charges a held request whose client went away as if it
	// had been answered: the worst case of a real API, which may finish
	// and bill a generation nobody reads any more.
	ChargeCutOff bool
}

// SetBilling makes the server charge for its answers from now on.
func (s *Server) SetBilling(b Billing) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.billing = b
	if s.systems == nil {
		s.systems = map[string]bool{}
	}
}

// Spent is the USD charged so far.
func (s *Server) Spent() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.spent
}

// Charges maps each request answered (by RequestKey) to the times it was
// charged: a client that never pays twice for one request has every
// value 1.
func (s *Server) Charges() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.charges))
	for k, v := range s.charges {
		out[k] = v
	}
	return out
}

// Received maps each chat request received (by RequestKey) to the times it
// arrived, answered or not.
func (s *Server) Received() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for _, r := range s.reqs {
		if r.Format != "" {
			out[RequestKey(r.Model, r.Messages)]++
		}
	}
	return out
}

// RequestKey names a request by its model and messages.
func RequestKey(model string, msgs []Message) string {
	js, _ := json.Marshal(struct {
		Model    string    `json:"model"`
		Messages []Message `json:"messages"`
	}{model, msgs})
	sum := sha256.Sum256(js)
	return hex.EncodeToString(sum[:])
}

// RateLimitEvery answers every nth chat request with a 429 carrying
// Retry-After retryAfter (0 stops), before any script or default.
func (s *Server) RateLimitEvery(n int, retryAfter string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limitEvery, s.limitAfter = n, retryAfter
}

// HoldAfter lets n chat requests be answered, then holds every later one
// unanswered until Release (or until its client goes away, uncharged).
func (s *Server) HoldAfter(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.holdAfter, s.holding = n, true
}

// Release answers the held requests and holds no more.
func (s *Server) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.holding {
		s.holding = false
		close(s.released)
		s.released = make(chan struct{})
	}
}

// Held is the number of chat requests being held now.
func (s *Server) Held() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held
}

// CutOff is the number of held chat requests whose client went away
// before they were answered (a client killed with requests in flight).
func (s *Server) CutOff() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cutOff
}

// wentAway counts a held request whose client left, and charges it when
// Billing.ChargeCutOff says the API bills it all the same.
func (s *Server) wentAway(req Request, rep Reply) {
	s.mu.Lock()
	s.cutOff++
	bill := s.billing.ChargeCutOff
	s.mu.Unlock()
	if bill && rep.status() < 400 && !rep.Drop && !rep.Malformed && rep.Body == "" {
		prompt, cached, completion := s.usage(req, rep)
		s.charge(req, prompt, cached, completion, false)
	}
}

// Answered is the number of chat requests let through to be answered
// (HoldAfter counts these).
func (s *Server) Answered() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answered
}

// WaitUntil polls cond until it holds, failing the test after timeout.
func (s *Server) WaitUntil(t testing.TB, what string, cond func() bool, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("fakellm: still waiting after %v for %s", timeout, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// usage is what an answer to req reports and is charged: the scripted
// counts, else the tokenizer's (words by default) over the messages and
// the answer, at most the request's max_tokens unless the reply says
// PastMaxTokens; cached is the part of prompt served from the prompt cache.
func (s *Server) usage(req Request, rep Reply) (prompt, cached, completion int) {
	s.mu.Lock()
	b := s.billing
	s.mu.Unlock()
	count := b.Tokens
	if count == nil {
		count = func(text string) int { return len(strings.Fields(text)) }
	}
	prompt, completion = rep.PromptTokens, rep.CompletionTokens
	if prompt == 0 {
		for _, m := range req.Messages {
			prompt += count(m.Content)
		}
	}
	if completion == 0 {
		completion = count(rep.Text)
	}
	if req.MaxTokens != nil && *req.MaxTokens > 0 && !rep.PastMaxTokens {
		completion = min(completion, *req.MaxTokens) // where a real API stops
	}
	if b.CacheSystem && len(req.Messages) > 0 && req.Messages[0].Role == "system" {
		s.mu.Lock()
		if s.systems[req.Messages[0].Content] {
			cached = min(prompt, count(req.Messages[0].Content))
		}
		s.mu.Unlock()
	}
	return prompt, cached, completion
}

// charge records an answer to req as paid.
func (s *Server) charge(req Request, prompt, cached, completion int, batch bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.billing
	usd := (float64(prompt-cached)*b.InputPerMillion + float64(cached)*b.CachedInputPerMillion +
		float64(completion)*b.OutputPerMillion) / 1e6
	if batch {
		usd *= 1 - b.BatchDiscount
	}
	s.spent += usd
	if s.charges == nil {
		s.charges = map[string]int{}
	}
	s.charges[RequestKey(req.Model, req.Messages)]++
	if s.systems != nil && len(req.Messages) > 0 && req.Messages[0].Role == "system" {
		s.systems[req.Messages[0].Content] = true
	}
}
