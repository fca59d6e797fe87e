package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// ollama speaks Ollama's native API (POST /api/chat, stream false), not its
// OpenAI shim: only the native API takes num_ctx per request, and without it
// Ollama silently truncates long prompts to its small default window.
type ollama struct{ c *client }

type ollamaChatRequest struct {
	Model    string        `json:"model"`
	Messages []Message     `json:"messages"`
	Stream   bool          `json:"stream"`
	Format   string        `json:"format,omitempty"`
	Options  ollamaOptions `json:"options"`
	// Think is always sent: false must reach the server to switch thinking
	// off (a missing field leaves a thinking model thinking).
	Think bool `json:"think"`
}

type ollamaOptions struct {
	NumCtx int `json:"num_ctx,omitempty"`
	// Temperature is always sent: 0 (greedy) is the project default and must
	// not fall back to the model's.
	Temperature float64 `json:"temperature"`
	NumPredict  int     `json:"num_predict,omitempty"`
}

type ollamaChatResponse struct {
	Model   string `json:"model"`
	Message *struct {
		Content  string `json:"content"`
		Thinking string `json:"thinking"`
	} `json:"message"`
	// Counts are absent when Ollama skips them (e.g. a fully cached prompt).
	PromptEvalCount *int   `json:"prompt_eval_count"`
	EvalCount       *int   `json:"eval_count"`
	Error           string `json:"error"`
}

func (o *ollama) send(ctx context.Context, req Request) (Response, error) {
	c := o.c
	body, err := json.Marshal(ollamaBody(c.cfg, req))
	if err != nil {
		return Response{}, err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.BaseURL+"/api/chat", bytes.NewReader(body))
	if err != nil {
		return Response{}, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hresp, err := c.http.Do(hreq)
	if err != nil {
		return Response{}, err
	}
	defer hresp.Body.Close()
	limit := c.cfg.answerLimit(req)
	raw, over, err := readAnswer(hresp.Body, limit)
	if err != nil {
		return Response{}, err // connection lost mid-body: a transport error
	}
	if over {
		return Response{}, c.tooLarge(raw, req)
	}
	if hresp.StatusCode < 200 || hresp.StatusCode > 299 {
		return Response{}, o.statusFailure(hresp, raw)
	}
	var out ollamaChatResponse
	if err := json.Unmarshal(raw, &out); err != nil {
		return Response{}, c.malformed(raw, err)
	}
	if out.Message == nil {
		return Response{}, c.malformed(raw, fmt.Errorf("no message in the answer"))
	}
	text, thinking := splitThinking(out.Message.Content, out.Message.Thinking)
	return Response{Text: text, Thinking: thinking, Model: out.Model,
		PromptTokens: out.PromptEvalCount, CompletionTokens: out.EvalCount}, nil
}

// ollamaBody is the /api/chat body of req on the model of cfg (its
// adapter's Ollama model when it has one).
func ollamaBody(cfg ModelConfig, req Request) ollamaChatRequest {
	in := ollamaChatRequest{
		Model:    cfg.RequestModel(),
		Messages: messages(req),
		Options: ollamaOptions{
			NumCtx:      cfg.ContextWindow,
			Temperature: cfg.temperature(req),
			NumPredict:  cfg.maxTokens(req),
		},
		Think: cfg.Think,
	}
	if req.JSON {
		in.Format = "json"
	}
	return in
}

func (o *ollama) statusFailure(hresp *http.Response, raw []byte) *failure {
	c := o.c
	var e struct {
		Error string `json:"error"`
	}
	detail := string(raw)
	if json.Unmarshal(raw, &e) == nil && e.Error != "" {
		detail = e.Error
	}
	if hresp.StatusCode == http.StatusNotFound {
		lower := strings.ToLower(detail)
		if strings.Contains(lower, "model") && strings.Contains(lower, "not found") {
			m := c.cfg.RequestModel()
			fix := fmt.Sprintf("run `ollama pull %s`", m)
			if c.cfg.Adapter != nil {
				fix = fmt.Sprintf("adapter %s is served as the Ollama model %s: make it with `ollama create %s` (`cra adapters serve-config` prints the Modelfile)",
					c.cfg.Adapter, m, m)
			}
			return &failure{status: hresp.StatusCode, err: &kindError{kind: ErrModelNotFound,
				msg: fmt.Sprintf("model %s not found on %s — %s", m, c.cfg.BaseURL, fix)}}
		}
		detail += " (is base_url the Ollama server root, without /v1?)"
	}
	return c.statusFailure(hresp.StatusCode, hresp.Header, detail, nil)
}
