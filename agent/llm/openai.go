package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// openAI serves openai_compat (vLLM, llama-server: Model names the base
// model or a LoRA adapter, chosen per request) and remote_api (teacher
// models) through go-openai's chat completions.
type openAI struct {
	c     *client
	api   *openai.Client
	loras loraIndex // llama.cpp's server: its loaded adapters (lora.go)
}

func newOpenAI(c *client, key string) *openAI {
	conf := openai.DefaultConfig(key) // "" sends no Authorization header
	conf.BaseURL = c.cfg.BaseURL
	conf.HTTPClient = hook(c.http)
	return &openAI{c: c, api: openai.NewClientWithConfig(conf)}
}

func (p *openAI) send(ctx context.Context, req Request) (Response, error) {
	c := p.c
	lora, err := p.loraField(ctx)
	if err != nil {
		return Response{}, err
	}
	body := NewChatBody(c.cfg, req)
	in := openai.ChatCompletionRequest{Model: body.Model, MaxCompletionTokens: body.MaxCompletionTokens,
		ChatTemplateKwargs: body.ChatTemplateKwargs}
	//lint:ignore SA1019 vLLM, llama-server and older OpenAI-compatible servers read max_tokens only
	in.MaxTokens = body.MaxTokens
	x := &exchange{limit: c.cfg.answerLimit(req)}
	x.extra = map[string]any{}
	if body.Temperature != nil {
		x.extra["temperature"] = *body.Temperature
	}
	if lora != nil {
		x.extra["lora"] = lora
	}
	for _, m := range body.Messages {
		in.Messages = append(in.Messages, openai.ChatCompletionMessage{Role: m.Role, Content: m.Content})
	}
	if body.ResponseFormat != nil {
		in.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatType(body.ResponseFormat.Type)}
	}
	out, err := p.api.CreateChatCompletion(withExchange(ctx, x), in)
	if x.over {
		return Response{}, c.tooLarge(x.body, req)
	}
	if err != nil {
		return Response{}, p.classify(err, x)
	}
	resp, err := responseOf(out)
	if err != nil {
		return Response{}, c.malformed(x.body, err)
	}
	return resp, nil
}

// responseOf reads a chat completion: the text without thinking, the
// thinking apart, and the usage.
func responseOf(out openai.ChatCompletionResponse) (Response, error) {
	if len(out.Choices) == 0 {
		return Response{}, errors.New("no choices in the answer")
	}
	msg := out.Choices[0].Message
	text, thinking := splitThinking(msg.Content, msg.ReasoningContent)
	resp := Response{Text: text, Thinking: thinking, Model: out.Model}
	// go-openai's Usage is not a pointer: absent and all-zero look the same,
	// and both mean the server did not count.
	if u := out.Usage; u.PromptTokens != 0 || u.CompletionTokens != 0 {
		pt, ct := u.PromptTokens, u.CompletionTokens
		resp.PromptTokens, resp.CompletionTokens = &pt, &ct
		if d := u.PromptTokensDetails; d != nil {
			cached := d.CachedTokens
			resp.CachedPromptTokens = &cached
		}
	}
	return resp, nil
}

// classify turns go-openai's errors into failures; errors without an HTTP
// answer go back as they are, for the client's transport classification.
func (p *openAI) classify(err error, x *exchange) error {
	c := p.c
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	var status int
	var detail string
	switch {
	case errors.As(err, &apiErr):
		status, detail = apiErr.HTTPStatusCode, apiErr.Message
	case errors.As(err, &reqErr):
		status, detail = reqErr.HTTPStatusCode, string(reqErr.Body)
	case x.status >= 200 && x.status <= 299:
		return c.malformed(x.body, err) // go-openai could not decode a 2xx
	default:
		return err
	}
	if status == 0 { // a RequestError wrapping an APIError leaves the inner code unset
		status = x.status
	}
	if status == http.StatusNotFound && modelMissing(detail) {
		hint := "a LoRA adapter must be loaded by the server"
		switch {
		case c.cfg.Provider == ProviderRemoteAPI:
			hint = "check the model name in the config"
		case c.cfg.Adapter != nil:
			hint = fmt.Sprintf("adapter %s is served as %s: start vLLM with --enable-lora --lora-modules %s=%s (`cra adapters serve-config` prints the command)",
				c.cfg.Adapter, c.cfg.RequestModel(), c.cfg.RequestModel(), c.cfg.Adapter.Path)
		}
		return &failure{status: status, err: &kindError{kind: ErrModelNotFound, cause: err,
			msg: fmt.Sprintf("model %s is not served at %s — see GET %s/models (%s)",
				c.cfg.RequestModel(), c.cfg.BaseURL, c.cfg.BaseURL, hint)}}
	}
	return c.statusFailure(status, x.header, detail, err)
}

// modelMissing recognises vLLM's and OpenAI's "no such model" messages.
func modelMissing(detail string) bool {
	d := strings.ToLower(detail)
	return strings.Contains(d, "model") && (strings.Contains(d, "does not exist") || strings.Contains(d, "not found"))
}

// reasoningModel matches OpenAI's reasoning model families (o1, o3, o4-mini,
// gpt-5 …), which take max_completion_tokens and no temperature.
var reasoningModel = regexp.MustCompile(`^(o[1-9]|gpt-5)([-.:_]|$)`)

// ReasoningModel reports whether model is an OpenAI-style reasoning model.
func ReasoningModel(model string) bool { return reasoningModel.MatchString(model) }
