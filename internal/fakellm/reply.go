package fakellm

import "time"

// Reply is one scripted answer to a chat request.
type Reply struct {
	// Text is the assistant message content of a successful reply.
	Text string
	// Status is the HTTP status code; 0 means 200.
	Status int
	// Error is the error message sent when Status >= 400. Empty means a
	// default for the status in the request's wire format (for 404, the
	// format's "model not found" message).
	Error string
	// RetryAfter is sent verbatim as the Retry-After header when not empty
	// ("2", or an HTTP date).
	RetryAfter string
	// Delay holds the reply back this long. It ends early when the client
	// goes away or the server shuts down, so a long delay never hangs a test.
	Delay time.Duration
	// Malformed sends a 200 whose body is not valid JSON.
	Malformed bool
	// Body, when not empty, is sent verbatim (with Status) instead of the
	// format's own body, for answers the other fields cannot describe.
	Body string
	// OmitUsage leaves out the token counts: Ollama's prompt_eval_count and
	// eval_count, OpenAI's usage object.
	OmitUsage bool
	// PromptTokens and CompletionTokens are the counts reported (and
	// charged); 0 means a count of the request's messages and of Text, in
	// words or by Billing.Tokens.
	PromptTokens, CompletionTokens int
	// PastMaxTokens reports (and charges) CompletionTokens even above the
	// request's max_tokens, where a real API stops: a provider whose usage
	// is wrong, or that bills more than it was allowed to generate.
	PastMaxTokens bool
	// Drop closes the connection without writing a response.
	Drop bool
	// Thinking is sent apart from Text, as thinking servers do: Ollama's
	// message.thinking, OpenAI-compatible reasoning_content (vLLM).
	Thinking string
}

// Echo is a default reply: it answers with the content of the last user
// message.
func Echo(req Request) Reply {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			return Reply{Text: req.Messages[i].Content}
		}
	}
	return Reply{}
}

// Fixed returns a default reply that always answers text.
func Fixed(text string) func(Request) Reply {
	return func(Request) Reply { return Reply{Text: text} }
}

func (r Reply) status() int {
	if r.Status == 0 {
		return 200
	}
	return r.Status
}
