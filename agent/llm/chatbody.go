package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// ChatBody is the body of an OpenAI chat completion request as this
// package sends it for a Request: the one home of request shaping for the
// OpenAI wire format (openai_compat and remote_api), used by live calls,
// by Batch API input lines and as the canonical form a request is cached
// under. Reasoning models get max_completion_tokens and no temperature;
// other models max_tokens and the temperature (0 included: it is sent).
type ChatBody struct {
	Model               string          `json:"model"`
	Messages            []Message       `json:"messages"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	ResponseFormat      *ResponseFormat `json:"response_format,omitempty"`
	// ChatTemplateKwargs is vLLM's chat template switch for Qwen3-class
	// models, sent to openai_compat servers only (remote APIs would refuse
	// the unknown field).
	ChatTemplateKwargs map[string]any `json:"chat_template_kwargs,omitempty"`
}

// ResponseFormat asks for JSON output.
type ResponseFormat struct {
	Type string `json:"type"`
}

// NewChatBody shapes req for the model of cfg (its defaults applied where
// req leaves them), its prompts as they may leave the machine (outbound).
func NewChatBody(cfg ModelConfig, req Request) ChatBody {
	req.System, req.Prompt = cfg.outbound(req.System), cfg.outbound(req.Prompt)
	body := ChatBody{Model: cfg.RequestModel(), Messages: messages(req)}
	if ReasoningModel(cfg.Model) {
		// Reasoning models refuse max_tokens and any temperature but their own.
		body.MaxCompletionTokens = cfg.maxTokens(req)
	} else {
		temp := cfg.temperature(req)
		body.MaxTokens, body.Temperature = cfg.maxTokens(req), &temp
	}
	if req.JSON {
		body.ResponseFormat = &ResponseFormat{Type: "json_object"}
	}
	if cfg.Provider == ProviderOpenAICompat {
		body.ChatTemplateKwargs = map[string]any{"enable_thinking": cfg.Think}
	}
	return body
}

// Key is the sha256 (hex) of the body's canonical JSON: model, messages
// and parameters, so two requests that would get the same answer share a
// key and any difference gives another. The API key and URL are not part
// of it.
func (b ChatBody) Key() string {
	js, err := json.Marshal(b)
	if err != nil {
		panic(err) // strings, numbers and a map of a bool only
	}
	sum := sha256.Sum256(js)
	return hex.EncodeToString(sum[:])
}
