package kb

import (
	"database/sql/driver"
	"time"
)

// LLMCall is one model call as raw.retrieval_llm_calls keeps it; failed
// calls are rows too (Response nil, Error set).
type LLMCall struct {
	TaskID, CallType, StageName string
	Model, Provider             string
	SystemPrompt, Prompt        string
	Response                    *string
	Thinking                    *string // a thinking model's thoughts, apart from Response
	PromptTokens                *int    // nil when the provider omits usage
	CompletionTokens            *int
	Latency                     time.Duration
	Error                       string
	At                          time.Time
	// Adapter is the registered LoRA adapter that answered (its name,
	// version and weights' sha256); "" when the base model did.
	Adapter        string
	AdapterVersion int
	AdapterSHA256  string
}

var llmCallColumns = []string{"task_id", "call_type", "stage_name", "model", "provider", "system_prompt", "prompt",
	"response", "prompt_tokens", "completion_tokens", "latency_ms", "error", "timestamp", "thinking",
	"adapter", "adapter_version", "adapter_sha256"}

// AppendLLMCalls appends calls through the writer's Appender, in its
// current transaction.
func AppendLLMCalls(w Writer, calls []LLMCall) error {
	rows := make([][]driver.Value, len(calls))
	for i, c := range calls {
		var resp, thinking, pt, ct, stage, errText, adapter, version, sha any
		if c.Response != nil {
			resp = *c.Response
		}
		if c.Thinking != nil {
			thinking = *c.Thinking
		}
		if c.PromptTokens != nil {
			pt = int32(*c.PromptTokens)
		}
		if c.CompletionTokens != nil {
			ct = int32(*c.CompletionTokens)
		}
		if c.StageName != "" {
			stage = c.StageName
		}
		if c.Error != "" {
			errText = c.Error
		}
		if c.Adapter != "" {
			adapter, version, sha = c.Adapter, int32(c.AdapterVersion), c.AdapterSHA256
		}
		rows[i] = []driver.Value{c.TaskID, c.CallType, stage, c.Model, c.Provider, c.SystemPrompt, c.Prompt,
			resp, pt, ct, c.Latency.Milliseconds(), errText, c.At, thinking, adapter, version, sha}
	}
	return w.AppendAll("retrieval_llm_calls", llmCallColumns, rows)
}
