package llm_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/fakellm"
)

// The whole Batch API round trip against the fake over HTTP: the input
// lines are the bodies live calls send, a batch found again by its input
// file, results read back by custom_id with usage, failures apart.
func TestBatchRoundTrip(t *testing.T) {
	srv := fakellm.New(t)
	srv.SetDefault(func(req fakellm.Request) fakellm.Reply {
		if strings.Contains(req.Messages[len(req.Messages)-1].Content, "fail") {
			return fakellm.Reply{Status: 400, Error: "bad request"}
		}
		return fakellm.Echo(req)
	})
	srv.SetBilling(fakellm.Billing{InputPerMillion: 1, OutputPerMillion: 2, BatchDiscount: 0.5})
	cfg := config(llm.ProviderRemoteAPI, srv)
	b, err := llm.NewBatches(cfg, llm.WithLookupEnv(lookupKey))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := t.Context()
	reqs := map[string]llm.Request{"a": {System: "sys", Prompt: "first"}, "b": {Prompt: "please fail"}, "c": {Prompt: "third", JSON: true}}
	var lines []llm.BatchLine
	for _, id := range []string{"a", "b", "c"} {
		lines = append(lines, llm.BatchLine{CustomID: id, Body: llm.NewChatBody(cfg, reqs[id])})
	}
	file, err := b.Upload(ctx, "in.jsonl", llm.BatchInput(lines))
	if err != nil {
		t.Fatal(err)
	}
	srv.HoldBatches(true)
	created, err := b.Create(ctx, file, map[string]string{"cra": "test"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := b.Get(ctx, created.ID); err != nil || got.Done() {
		t.Fatalf("held batch: %+v, %v; want it not done", got, err)
	}
	found, ok, err := b.FindByInput(ctx, file)
	if err != nil || !ok || found.ID != created.ID {
		t.Fatalf("FindByInput(%s) = %+v, %v, %v; want %s", file, found, ok, err, created.ID)
	}
	if _, ok, _ := b.FindByInput(ctx, "file-none"); ok {
		t.Error("FindByInput found a batch for a file never uploaded")
	}
	srv.HoldBatches(false)
	done, err := b.Get(ctx, created.ID)
	if err != nil || done.Status != llm.BatchCompleted || done.OutputFileID == "" || done.ErrorFileID == "" {
		t.Fatalf("released batch: %+v, %v", done, err)
	}
	results, cut, err := b.Results(ctx, done.OutputFileID, 3)
	if err != nil || cut || len(results) != 2 {
		t.Fatalf("output: %d results, cut %v, %v", len(results), cut, err)
	}
	for _, r := range results {
		resp, err := r.Answer()
		if err != nil {
			t.Fatalf("%s: %v", r.CustomID, err)
		}
		if resp.Text != reqs[r.CustomID].Prompt || resp.PromptTokens == nil || resp.CompletionTokens == nil {
			t.Errorf("%s: %+v", r.CustomID, resp)
		}
	}
	failed, _, err := b.Results(ctx, done.ErrorFileID, 3)
	if err != nil || len(failed) != 1 || failed[0].CustomID != "b" {
		t.Fatalf("error file: %+v", failed)
	}
	if _, err := failed[0].Answer(); !errors.Is(err, llm.ErrRejected) {
		t.Errorf("a failed line's Answer: %v, want ErrRejected", err)
	}
	// The lines went out as live calls would send them.
	var sent []json.RawMessage
	for _, r := range srv.Requests() {
		if strings.HasPrefix(r.Path, "batch:") {
			sent = append(sent, r.Body)
		}
	}
	for i, l := range lines {
		want, _ := json.Marshal(l.Body)
		if i >= len(sent) || string(sent[i]) != string(want) {
			t.Errorf("batch line %d body = %s, want %s", i, sent[i], want)
		}
	}
	if srv.Uploads() != 1 || srv.BatchesCreated() != 1 || srv.BatchRequests() != 2 {
		t.Errorf("uploads %d, batches %d, requests %d; want 1, 1, 2", srv.Uploads(), srv.BatchesCreated(), srv.BatchRequests())
	}
}

// The canonical body: what the live call sends, reasoning models shaped
// apart, and a key that changes with every part of the request.
func TestChatBody(t *testing.T) {
	base := llm.ModelConfig{Provider: llm.ProviderRemoteAPI, Model: "deepseek-chat", MaxTokens: 100}
	req := llm.Request{System: "s", Prompt: "p", JSON: true}
	body := llm.NewChatBody(base, req)
	if body.MaxTokens != 100 || body.Temperature == nil || *body.Temperature != 0 || body.MaxCompletionTokens != 0 || body.ResponseFormat == nil {
		t.Errorf("chat model body: %+v", body)
	}
	reasoning := base
	reasoning.Model = "o4-mini"
	if b := llm.NewChatBody(reasoning, req); b.MaxCompletionTokens != 100 || b.MaxTokens != 0 || b.Temperature != nil {
		t.Errorf("reasoning model body: %+v", b)
	}
	keys := map[string]string{}
	for name, b := range map[string]llm.ChatBody{
		"base":        body,
		"model":       llm.NewChatBody(reasoning, req),
		"prompt":      llm.NewChatBody(base, llm.Request{System: "s", Prompt: "q", JSON: true}),
		"system":      llm.NewChatBody(base, llm.Request{System: "t", Prompt: "p", JSON: true}),
		"json":        llm.NewChatBody(base, llm.Request{System: "s", Prompt: "p"}),
		"max tokens":  llm.NewChatBody(base, llm.Request{System: "s", Prompt: "p", JSON: true, MaxTokens: 5}),
		"temperature": llm.NewChatBody(base, llm.Request{System: "s", Prompt: "p", JSON: true, Temperature: ptr(0.7)}),
	} {
		if other, ok := keys[b.Key()]; ok {
			t.Errorf("%s and %s share a key", name, other)
		}
		keys[b.Key()] = name
	}
	if body.Key() != llm.NewChatBody(base, req).Key() {
		t.Error("the same request gives two keys")
	}
	withKey := base
	withKey.APIKeyEnv, withKey.BaseURL = "OTHER", "http://elsewhere/v1"
	if llm.NewChatBody(withKey, req).Key() != body.Key() {
		t.Error("the key depends on where the request goes, not only on what it asks")
	}

	// The live call sends exactly this body.
	srv := fakellm.New(t)
	cfg := config(llm.ProviderRemoteAPI, srv)
	c, _ := newClient(t, cfg)
	if _, err := c.Complete(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	var sent, want map[string]any
	_ = json.Unmarshal(srv.Requests()[0].Body, &sent)
	js, _ := json.Marshal(llm.NewChatBody(cfg, req))
	_ = json.Unmarshal(js, &want)
	for k, v := range want {
		if sj, _ := json.Marshal(sent[k]); string(sj) != mustJSON(v) {
			t.Errorf("live body %s = %s, want %s", k, sj, mustJSON(v))
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A prompt leaves for a remote_api provider with its credentials redacted
// (live calls and Batch API lines share NewChatBody); a server the user
// runs gets it as it is.
func TestChatBodyRedactsRemotePrompts(t *testing.T) {
	const key = `AWS = "AKIAIOSFODNN7EXAMPLE"`
	req := llm.Request{System: "sys " + key, Prompt: "fix " + key}
	for _, tc := range []struct {
		provider string
		redacted bool
	}{{llm.ProviderRemoteAPI, true}, {llm.ProviderOpenAICompat, false}} {
		body := llm.NewChatBody(llm.ModelConfig{Provider: tc.provider, Model: "m"}, req)
		for _, m := range body.Messages {
			if got := !strings.Contains(m.Content, "AKIA"); got != tc.redacted || tc.redacted && !strings.Contains(m.Content, `AWS = "[REDACTED]"`) {
				t.Errorf("%s: %s message %q, want redacted %v", tc.provider, m.Role, m.Content, tc.redacted)
			}
		}
	}
}
