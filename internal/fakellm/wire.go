package fakellm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// The bodies below follow what real servers send closely enough for clients
// to parse them: Ollama's /api/chat and /api/tags, OpenAI's (as served by
// vLLM and llama-server) /v1/chat/completions and /v1/models.

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeChat(w http.ResponseWriter, req Request, rep Reply, seq, prompt, cached, completion int) {
	switch req.Format {
	case FormatOllama:
		body := map[string]any{
			"model":          req.Model,
			"created_at":     time.Unix(0, 0).UTC().Format(time.RFC3339),
			"message":        map[string]any{"role": "assistant", "content": rep.Text, "thinking": rep.Thinking},
			"done":           true,
			"done_reason":    "stop",
			"total_duration": 1000,
		}
		if !rep.OmitUsage {
			body["prompt_eval_count"] = prompt
			body["eval_count"] = completion
		}
		writeJSON(w, http.StatusOK, body)
	default:
		writeJSON(w, http.StatusOK, openAIChat(req, rep, fmt.Sprintf("chatcmpl-fake-%d", seq), prompt, cached, completion))
	}
}

// openAIChat is an OpenAI chat completion body, as a live call or a batch
// result carries it.
func openAIChat(req Request, rep Reply, id string, prompt, cached, completion int) map[string]any {
	body := map[string]any{
		"id":      id,
		"object":  "chat.completion",
		"created": 0,
		"model":   req.Model,
		"choices": []map[string]any{{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": rep.Text, "reasoning_content": rep.Thinking},
			"finish_reason": "stop",
		}},
	}
	if !rep.OmitUsage {
		usage := map[string]any{
			"prompt_tokens":     prompt,
			"completion_tokens": completion,
			"total_tokens":      prompt + completion,
		}
		if cached > 0 {
			usage["prompt_tokens_details"] = map[string]int{"cached_tokens": cached}
		}
		body["usage"] = usage
	}
	return body
}

func writeError(w http.ResponseWriter, req Request, rep Reply) {
	status := rep.status()
	msg := rep.Error
	switch req.Format {
	case FormatOllama:
		if msg == "" {
			msg = defaultError(status, fmt.Sprintf("model %q not found, try pulling it first", req.Model))
		}
		writeJSON(w, status, map[string]string{"error": msg})
	default:
		if msg == "" {
			msg = defaultError(status, fmt.Sprintf("The model `%s` does not exist.", req.Model))
		}
		writeJSON(w, status, map[string]any{"error": map[string]any{
			"message": msg,
			"type":    http.StatusText(status),
			"code":    status,
		}})
	}
}

func defaultError(status int, notFound string) string {
	if status == http.StatusNotFound {
		return notFound
	}
	return fmt.Sprintf("fakellm: scripted %d %s", status, http.StatusText(status))
}

// writeMalformed sends a 200 with a JSON body cut short.
func writeMalformed(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(`{"model": "fake", "message": {"role": "assistant", "content": "cut sho`))
}

func writeModels(w http.ResponseWriter, format string, models []string) {
	if format == FormatOllama {
		list := make([]map[string]any, 0, len(models))
		for _, m := range models {
			list = append(list, map[string]any{"name": m, "model": m, "size": 0, "digest": ""})
		}
		writeJSON(w, http.StatusOK, map[string]any{"models": list})
		return
	}
	list := make([]map[string]any, 0, len(models))
	for _, m := range models {
		list = append(list, map[string]any{"id": m, "object": "model", "created": 0, "owned_by": "fakellm"})
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": list})
}
