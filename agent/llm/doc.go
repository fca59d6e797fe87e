// Package llm is cra's model layer: every model call cra makes goes through
// it.
//
// It owns:
//   - the transport: one Client per configured model, speaking to Ollama
//     (native /api/chat), to OpenAI-compatible servers such as vLLM and
//     llama-server (openai_compat, where the model name selects a LoRA adapter
//     per request) and to remote teacher APIs (remote_api), the last two
//     through go-openai; request shaping per wire format (OpenAI reasoning
//     models get max_completion_tokens and no temperature), the per-attempt
//     timeout, retries with exponential backoff and full jitter on 429, 5xx
//     and connection errors (honouring Retry-After), context cancellation, a
//     per-client concurrency limit, and typed errors (*Error and the Err*
//     kinds) with messages that say what to do;
//   - the OpenAI request body (chatbody.go: ChatBody), the one home of its
//     shape, whose sha256 is the canonical key a teacher's answer is cached
//     under; and the OpenAI Batch API (batch.go: upload, create, ask, find a
//     batch again by its input file, download results);
//   - routing (router.go): which model serves a role (coding, reasoning), a
//     stage override from [models] or a stage's champion adapter (asked for
//     as its server asks: vLLM and Ollama by served name, llama.cpp's server
//     by the id its GET /lora-adapters lists, lora.go), and the teacher of
//     [teacher];
//   - the prompt budget (budget.go): what fits in the context window;
//   - the logged client (logged.go): every call, failed ones included, a row
//     of raw.retrieval_llm_calls, written in batches through a CallLog the
//     caller supplies (it never opens a store itself).
//
// A prompt leaving for a remote_api provider has its credentials redacted
// (internal/secrets, the [curate] secrets patterns) in what is sent and
// what is logged; answers are bounded in size before they are parsed
// (answersize.go), Batch API downloads too.
//
// It must not: load config files (callers pass config.Config sections), hold
// prompt text or parse answers (agent/prompt does), or let an API key reach
// an error, a response, a log line or a stored row. The key is read from the
// environment once, in New, and never stored outside the client.
package llm
