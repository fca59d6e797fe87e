package kb

import (
	"context"
	"testing"
	"time"
)

// The calls read back under OpenTelemetry's GenAI names.
func TestGenAICallsView(t *testing.T) {
	t.Parallel()
	dir := initHome(t)
	ctx := context.Background()
	resp, thinking, in, out := "{}", "hm", 12, 3
	err := WithWriter(ctx, dir, Raw, Options{}, func(w Writer) error {
		return w.Tx(ctx, func() error {
			return AppendLLMCalls(w, []LLMCall{
				{TaskID: "run1:scope", CallType: "scope", StageName: "scope", Model: "qwen3:1.7b", Provider: "ollama",
					Prompt: "p", Response: &resp, Thinking: &thinking, PromptTokens: &in, CompletionTokens: &out,
					Latency: 1500 * time.Millisecond, At: time.Now()},
				{TaskID: "run1:plan", CallType: "plan", Model: "qwen3:1.7b", Provider: "openai_compat", Prompt: "p",
					Error: "boom", At: time.Now()},
			})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, dir, Raw, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var op, provider, model, conv, reasons string
	var input, output int
	var dur float64
	err = s.DB.QueryRow(`SELECT "gen_ai.operation.name", "gen_ai.provider.name", "gen_ai.request.model",
		"gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "gen_ai.conversation.id",
		"gen_ai.response.finish_reasons"::VARCHAR, duration FROM gen_ai_calls ORDER BY "call.id" LIMIT 1`).
		Scan(&op, &provider, &model, &input, &output, &conv, &reasons, &dur)
	if err != nil || op != "chat" || provider != "ollama" || model != "qwen3:1.7b" || input != 12 || output != 3 ||
		conv != "run1:scope" || reasons != "[stop]" || dur != 1.5 {
		t.Errorf("gen_ai_calls: %s %s %s %d %d %s %s %v (%v)", op, provider, model, input, output, conv, reasons, dur, err)
	}
	var failed string
	if err := s.DB.QueryRow(`SELECT "error.type" FROM gen_ai_calls WHERE "gen_ai.conversation.id" = 'run1:plan'`).Scan(&failed); err != nil || failed != "boom" {
		t.Errorf("failed call: %q (%v)", failed, err)
	}
}

// A call an adapter answered keeps its name, version and sha256, in the
// table and the view; a call of the base model has NULLs.
func TestLLMCallAdapter(t *testing.T) {
	t.Parallel()
	dir := initHome(t)
	ctx := context.Background()
	err := WithWriter(ctx, dir, Raw, Options{}, func(w Writer) error {
		return w.Tx(ctx, func() error {
			return AppendLLMCalls(w, []LLMCall{
				{TaskID: "r:scope", CallType: "scope", Model: "base", Prompt: "p", At: time.Now(),
					Adapter: "scope-lora", AdapterVersion: 3, AdapterSHA256: "ab12"},
				{TaskID: "r:plan", CallType: "plan", Model: "base", Prompt: "p", At: time.Now()},
			})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, dir, Raw, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, q := range []string{
		`SELECT coalesce(adapter, 'NULL'), coalesce(adapter_version::VARCHAR, 'NULL'), coalesce(adapter_sha256, 'NULL')
			FROM retrieval_llm_calls ORDER BY id`,
		`SELECT coalesce("cra.adapter.name", 'NULL'), coalesce("cra.adapter.version"::VARCHAR, 'NULL'),
			coalesce("cra.adapter.sha256", 'NULL') FROM gen_ai_calls ORDER BY "call.id"`,
	} {
		rows, err := s.DB.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for rows.Next() {
			var name, version, sha string
			if err := rows.Scan(&name, &version, &sha); err != nil {
				t.Fatal(err)
			}
			got = append(got, name+" "+version+" "+sha)
		}
		rows.Close()
		if len(got) != 2 || got[0] != "scope-lora 3 ab12" || got[1] != "NULL NULL NULL" {
			t.Errorf("%s:\n%q", q, got)
		}
	}
}
