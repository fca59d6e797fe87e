package llm

import (
	"context"
	"time"
)

// Request is one model call: a system prompt and a user prompt.
type Request struct {
	System, Prompt string
	// Temperature overrides ModelConfig.Temperature; nil keeps the model's.
	Temperature *float64
	// MaxTokens overrides ModelConfig.MaxTokens when > 0.
	MaxTokens int
	// JSON asks for JSON output where the provider supports it (Ollama
	// format "json", OpenAI response_format json_object).
	JSON bool

	// CallType, StageName and TaskID describe the call for the logged
	// client; they are never sent to the provider.
	CallType, StageName, TaskID string
}

// Response is a successful model call.
type Response struct {
	Text string
	// PromptTokens and CompletionTokens are the provider's own counts; nil
	// when it omits them (Ollama skips prompt_eval_count on a cached prompt;
	// some servers send no usage).
	PromptTokens, CompletionTokens *int
	// CachedPromptTokens is the part of PromptTokens the provider served
	// from its prompt cache (OpenAI's prompt_tokens_details.cached_tokens,
	// billed at a lower price); nil when it does not say.
	CachedPromptTokens *int
	// Latency is the duration of the attempt that succeeded (request sent to
	// body read), not counting earlier failed attempts or backoff.
	Latency time.Duration
	// Model is the model that answered as the server names it, or the
	// configured model when it does not say.
	Model, Provider string
	// Attempts is the number of HTTP requests the call took (1 without
	// retries).
	Attempts int
	// Thinking is what a thinking model wrote before its answer (Ollama's
	// message.thinking, vLLM's reasoning_content, or <think> blocks found
	// in the text): logged apart, never part of Text, so it reaches no
	// parser and no training example.
	Thinking string
}

// Client calls one configured model. It is safe for concurrent use; at most
// ModelConfig.MaxConcurrency calls are in progress at once, the others wait
// for a slot (or for ctx).
type Client interface {
	// Complete sends req, retrying per the client's policy. On failure the
	// error is an *Error.
	Complete(ctx context.Context, req Request) (Response, error)
	// Close releases idle connections. Calls after Close fail with
	// ErrClosed; calls in progress finish.
	Close() error
}

// Message is one chat message as both wire formats spell it.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// messages is the chat both wire formats send: optional system, then user.
func messages(req Request) []Message {
	var msgs []Message
	if req.System != "" {
		msgs = append(msgs, Message{Role: "system", Content: req.System})
	}
	return append(msgs, Message{Role: "user", Content: req.Prompt})
}

// temperature is the sampling temperature of req on this model.
func (cfg ModelConfig) temperature(req Request) float64 {
	if req.Temperature != nil {
		return *req.Temperature
	}
	return cfg.Temperature
}

// maxTokens is the completion cap of req on this model (0: the server's).
func (cfg ModelConfig) maxTokens(req Request) int {
	if req.MaxTokens > 0 {
		return req.MaxTokens
	}
	return cfg.MaxTokens
}
