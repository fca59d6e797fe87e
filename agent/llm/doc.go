// Package llm is the transport of cra's model layer: one Client per
// configured model, speaking to Ollama (native /api/chat), to
// OpenAI-compatible servers such as vLLM and llama-server (openai_compat,
// where the model name selects a LoRA adapter per request) and to remote
// teacher APIs (remote_api), the last two through go-openai.
//
// It owns, in one place for all providers: request shaping per wire format,
// the per-attempt timeout, retries with exponential backoff and full jitter
// on 429, 5xx and connection errors (honouring Retry-After), context
// cancellation, a per-client concurrency limit, typed errors (*Error and the
// Err* kinds) with messages that say what to do, and keeping the API key out
// of every error and response.
//
// It must not: load config files, choose a model for a role or stage (the
// router does), log calls or write to any store (the logged client wraps a
// Client for that), enforce prompt budgets, or hold prompt text (that is
// agent/prompt's). It writes no log lines itself. The API key is read from
// the environment once, in New, and is never stored outside the client.
package llm
