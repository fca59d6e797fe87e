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

// chatMessage is one message as both wire formats spell it.
type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// messages is the chat both wire formats send: optional system, then user.
func messages(req Request) []chatMessage {
	var msgs []chatMessage
	if req.System != "" {
		msgs = append(msgs, chatMessage{Role: "system", Content: req.System})
	}
	return append(msgs, chatMessage{Role: "user", Content: req.Prompt})
}

func (c *client) temperature(req Request) float64 {
	if req.Temperature != nil {
		return *req.Temperature
	}
	return c.cfg.Temperature
}

func (c *client) maxTokens(req Request) int {
	if req.MaxTokens > 0 {
		return req.MaxTokens
	}
	return c.cfg.MaxTokens
}
