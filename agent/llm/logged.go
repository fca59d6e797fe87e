package llm

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cra-dev/cra/kb"
)

// CallLog stores a batch of call rows (typically kb.AppendLLMCalls in one
// transaction on the raw store).
type CallLog func(ctx context.Context, calls []kb.LLMCall) error

// Logging batches: a batch is written when it holds logBatch rows or
// logEvery has passed; the queue holds logQueue rows before Complete waits.
const (
	logBatch = 64
	logEvery = 500 * time.Millisecond
	logQueue = 1024
)

// Logged is a Client whose every call, failed ones included, becomes a row
// of raw.retrieval_llm_calls: every call is training data. Rows are queued
// and written in batches by one goroutine, so logging does not slow the
// caller; Close writes what is left.
type Logged struct {
	inner  Client
	cfg    ModelConfig
	log    CallLog
	secret string // the API key, masked in every row as defence in depth
	queue  chan kb.LLMCall
	done   chan struct{}
	mu     sync.Mutex
	err    error
	once   sync.Once
	// qmu guards closed and sending on queue: Close closes the queue
	// only when no Complete is sending on it.
	qmu    sync.RWMutex
	closed bool
	tokens atomic.Int64 // prompt and completion tokens the provider reported
	// flushes asks the writer to write what is queued now.
	flushes chan chan error
}

// Tokens is the sum of the prompt and completion tokens the provider
// reported for this client's calls so far.
func (l *Logged) Tokens() int64 { return l.tokens.Load() }

// NewLogged wraps inner (built from cfg) so that its calls are logged.
func NewLogged(inner Client, cfg ModelConfig, log CallLog) *Logged {
	l := &Logged{inner: inner, cfg: cfg, log: log, queue: make(chan kb.LLMCall, logQueue), done: make(chan struct{}), flushes: make(chan chan error)}
	if cfg.APIKeyEnv != "" {
		l.secret = os.Getenv(cfg.APIKeyEnv)
	}
	go l.writer()
	return l
}

// Complete calls the model and queues the call's row.
func (l *Logged) Complete(ctx context.Context, req Request) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, err // never sent: nothing to log
	}
	l.qmu.RLock()
	closed := l.closed
	l.qmu.RUnlock()
	if closed {
		return Response{}, ErrClosed
	}
	start := time.Now()
	var resp Response
	err := l.gate(req)
	if err == nil {
		resp, err = l.inner.Complete(ctx, req)
	}
	row := l.Record(req, resp, err, start, time.Since(start))
	if !l.enqueue(row) {
		return resp, errors.Join(err, ErrClosed) // closed during the call: it could not be logged
	}
	return resp, err
}

// Record builds the row of one call, masked and counted in Tokens as
// Complete does, without storing it: for a call made outside Complete (a
// Batch API result), which the caller stores in the same transaction as
// what depends on it. latency is used when resp carries none.
func (l *Logged) Record(req Request, resp Response, err error, start time.Time, latency time.Duration) kb.LLMCall {
	row := kb.LLMCall{
		TaskID: req.TaskID, CallType: req.CallType, StageName: req.StageName,
		Model: l.cfg.Model, Provider: l.cfg.Provider,
		SystemPrompt: l.mask(l.cfg.outbound(req.System)), Prompt: l.mask(l.cfg.outbound(req.Prompt)),
		Latency: latency, At: start.UTC(),
	}
	if row.Provider == "" {
		row.Provider = ProviderOllama
	}
	if a := l.cfg.Adapter; a != nil {
		// The adapter has its own columns; model stays the base it was
		// trained on (vLLM and Ollama answer with the served name).
		row.Adapter, row.AdapterVersion, row.AdapterSHA256 = a.Name, a.Version, a.SHA256
	} else if resp.Model != "" {
		row.Model = resp.Model
	}
	if err != nil {
		row.Error = l.mask(err.Error())
		return row
	}
	text := l.mask(resp.Text)
	row.Response = &text
	if resp.Thinking != "" {
		thinking := l.mask(resp.Thinking)
		row.Thinking = &thinking
	}
	row.PromptTokens, row.CompletionTokens = resp.PromptTokens, resp.CompletionTokens
	for _, n := range []*int{resp.PromptTokens, resp.CompletionTokens} {
		if n != nil {
			l.tokens.Add(int64(*n))
		}
	}
	if resp.Latency > 0 {
		row.Latency = resp.Latency
	}
	return row
}

// gate is the hard gate before a call: the system prompt, the prompt and
// the completion's tokens must fit the model's context window, or the call
// is refused unsent with ErrOverBudget (and logged so).
func (l *Logged) gate(req Request) error {
	if l.cfg.ContextWindow <= 0 {
		return nil
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = l.cfg.MaxTokens
	}
	return Budget{ContextWindow: l.cfg.ContextWindow, SafetyMargin: l.cfg.SafetyMargin}.Check(req.System, req.Prompt, maxTokens)
}

// enqueue queues row for the writer unless the client is closed.
func (l *Logged) enqueue(row kb.LLMCall) bool {
	l.qmu.RLock()
	defer l.qmu.RUnlock()
	if l.closed {
		return false
	}
	l.queue <- row
	return true
}

// Mask is s with the API key masked, as every logged row has it: for what
// a caller stores of a call beside its row.
func (l *Logged) Mask(s string) string { return l.mask(s) }

func (l *Logged) mask(s string) string {
	if l.secret == "" {
		return s
	}
	return strings.ReplaceAll(s, l.secret, redacted)
}

// writer drains the queue in batches until Close.
func (l *Logged) writer() {
	defer close(l.done)
	var batch []kb.LLMCall
	tick := time.NewTicker(logEvery)
	defer tick.Stop()
	flush := func() {
		if len(batch) == 0 {
			return
		}
		if err := l.log(context.Background(), batch); err != nil {
			l.mu.Lock()
			l.err = errors.Join(l.err, err)
			l.mu.Unlock()
		}
		batch = nil
	}
	for {
		select {
		case row, ok := <-l.queue:
			if !ok {
				flush()
				return
			}
			batch = append(batch, row)
			if len(batch) >= logBatch {
				flush()
			}
		case <-tick.C:
			flush()
		case ack := <-l.flushes:
			// Every call that has returned has queued its row: take them all.
		drain:
			for {
				select {
				case row, ok := <-l.queue:
					if !ok {
						break drain
					}
					batch = append(batch, row)
				default:
					break drain
				}
			}
			flush()
			l.mu.Lock()
			ack <- l.err
			l.mu.Unlock()
		}
	}
}

// Flush writes the rows of every call that has returned, before it
// returns: a caller that marks work done after Flush knows its calls are
// stored (a kill -9 later loses none of them).
func (l *Logged) Flush() error {
	ack := make(chan error, 1)
	select {
	case l.flushes <- ack:
		return <-ack
	case <-l.done:
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.err
	}
}

// Close writes the queued rows, closes the wrapped client and reports the
// first failure to log.
func (l *Logged) Close() error {
	var closeErr error
	l.once.Do(func() {
		l.qmu.Lock()
		l.closed = true
		close(l.queue)
		l.qmu.Unlock()
		<-l.done
		closeErr = l.inner.Close()
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	return errors.Join(l.err, closeErr)
}
