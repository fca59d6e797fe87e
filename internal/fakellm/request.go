package fakellm

import (
	"encoding/json"
	"net/http"
)

// Wire formats a request can arrive in.
const (
	FormatOllama = "ollama"
	FormatOpenAI = "openai"
)

// Message is one chat message of a recorded request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is what the server received, normalised across both wire formats.
// Fields the client did not send stay at their zero value (nil pointers), so
// tests can tell "sent 0" from "not sent".
type Request struct {
	Method, Path string
	// Format is FormatOllama or FormatOpenAI, from the path.
	Format   string
	Model    string
	Messages []Message
	// Temperature is options.temperature (Ollama) or temperature (OpenAI).
	Temperature *float64
	// MaxTokens is options.num_predict (Ollama) or max_tokens /
	// max_completion_tokens (OpenAI).
	MaxTokens *int
	// JSON is true when the client asked for JSON output: format "json"
	// (Ollama) or response_format.type "json_object" (OpenAI).
	JSON bool
	// Think is Ollama's "think" or vLLM's chat_template_kwargs
	// enable_thinking; nil when the client did not send it.
	Think  *bool
	Stream bool
	// Options is Ollama's "options" object as decoded (numbers are float64).
	Options map[string]any
	// Authorization is the Authorization header as received.
	Authorization string
	Header        http.Header
	// LoRA is a llama.cpp request's "lora" list: nil when not sent, empty
	// when sent empty (every adapter off: the base model).
	LoRA []LoRA
	// Adapter is the served name of the LoRA adapter the request asked
	// for (SetAdapters), by any of the three shapes; "" for the base model.
	Adapter string
	// Body is the raw request body; DecodeError is set when it was not the
	// JSON the format expects.
	Body        []byte
	DecodeError error

	refusal *Reply // the answer to a request for what is not loaded
}

type ollamaChatRequest struct {
	Model    string         `json:"model"`
	Messages []Message      `json:"messages"`
	Stream   *bool          `json:"stream"`
	Format   any            `json:"format"`
	Options  map[string]any `json:"options"`
	Think    *bool          `json:"think"`
}

type openAIChatRequest struct {
	Model               string    `json:"model"`
	Messages            []Message `json:"messages"`
	Stream              bool      `json:"stream"`
	Temperature         *float64  `json:"temperature"`
	MaxTokens           *int      `json:"max_tokens"`
	MaxCompletionTokens *int      `json:"max_completion_tokens"`
	ResponseFormat      *struct {
		Type string `json:"type"`
	} `json:"response_format"`
	ChatTemplateKwargs struct {
		EnableThinking *bool `json:"enable_thinking"`
	} `json:"chat_template_kwargs"`
	LoRA []LoRA `json:"lora"`
}

// decode fills the format-specific fields of r from r.Body.
func (r *Request) decode() {
	if len(r.Body) == 0 {
		return
	}
	switch r.Format {
	case FormatOllama:
		var in ollamaChatRequest
		if r.DecodeError = json.Unmarshal(r.Body, &in); r.DecodeError != nil {
			return
		}
		r.Model, r.Messages, r.Options = in.Model, in.Messages, in.Options
		// Ollama streams unless told otherwise.
		r.Stream = in.Stream == nil || *in.Stream
		r.JSON = in.Format == "json"
		r.Think = in.Think
		if t, ok := in.Options["temperature"].(float64); ok {
			r.Temperature = &t
		}
		if n, ok := in.Options["num_predict"].(float64); ok {
			i := int(n)
			r.MaxTokens = &i
		}
	case FormatOpenAI:
		var in openAIChatRequest
		if r.DecodeError = json.Unmarshal(r.Body, &in); r.DecodeError != nil {
			return
		}
		r.Model, r.Messages, r.Stream, r.Temperature = in.Model, in.Messages, in.Stream, in.Temperature
		r.MaxTokens = in.MaxTokens
		if r.MaxTokens == nil {
			r.MaxTokens = in.MaxCompletionTokens
		}
		r.JSON = in.ResponseFormat != nil && in.ResponseFormat.Type == "json_object"
		r.Think = in.ChatTemplateKwargs.EnableThinking
		r.LoRA = in.LoRA
	}
}
