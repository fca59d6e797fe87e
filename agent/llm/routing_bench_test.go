package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/config"
)

// BenchmarkRouting is what routing costs a call: Resolve and the request
// body as sent, with and without a champion, on each server (llama.cpp's
// with 50 loaded adapters, already read from the server, as a client has
// them after its first call). The champion line reports its ratio to the
// base line and the time it adds (added-µs/op); the budget is under 1 ms
// (1000 µs).
func BenchmarkRouting(b *testing.B) {
	adapter := config.Adapter{Name: "scope", Version: 7, SHA256: "ab", Path: "/adapters/scope/7"}
	loaded := make([]loadedLoRA, 50)
	for i := range loaded {
		loaded[i] = loadedLoRA{ID: i, Path: fmt.Sprintf("/adapters/a%d/1/a.gguf", i)}
	}
	loaded[49].Path = adapter.Path + "/scope-v7.gguf"
	req := Request{System: "You choose files.", Prompt: strings.Repeat("func f() { return g(x) }\n", 320), JSON: true, StageName: "scope"}
	for _, server := range config.Servers() {
		provider := ProviderOpenAICompat
		if server == config.ServerOllama {
			provider = ProviderOllama
		}
		per := map[string]time.Duration{}
		for _, routed := range []string{"base", "champion"} {
			cfg := config.Default()
			cfg.Models.Provider, cfg.Models.BaseURL, cfg.Models.Reasoning = provider, "http://127.0.0.1:1/v1", "qwen3:1.7b"
			cfg.Adapters.Server = server
			if routed == "champion" {
				cfg.Models.Champions = map[string]config.Adapter{"scope": adapter}
			}
			router := NewRouter(cfg)
			mc, err := router.Resolve(RoleReasoning, "scope")
			if err != nil {
				b.Fatal(err)
			}
			built, err := New(mc)
			if err != nil {
				b.Fatal(err)
			}
			c := built.(*client)
			if p, ok := c.provider.(*openAI); ok {
				p.loras.loaded = loaded
			}
			b.Run(server+"/"+routed, func(b *testing.B) {
				start := time.Now()
				for b.Loop() {
					mc, err := router.Resolve(RoleReasoning, "scope")
					if err != nil {
						b.Fatal(err)
					}
					if err := requestBody(c, mc, req); err != nil {
						b.Fatal(err)
					}
				}
				per[routed] = time.Since(start) / time.Duration(b.N)
				if routed == "champion" && per["base"] > 0 {
					b.ReportMetric(float64(per["champion"])/float64(per["base"]), "x-base")
					b.ReportMetric(float64(per["champion"]-per["base"])/1e3, "added-µs/op")
				}
			})
			built.Close()
		}
	}
}

// requestBody builds the body c sends for req on mc, as its provider does
// (the OpenAI body patched with the fields go-openai cannot express, as
// hookTransport patches it).
func requestBody(c *client, mc ModelConfig, req Request) error {
	p, ok := c.provider.(*openAI)
	if !ok {
		_, err := json.Marshal(ollamaBody(mc, req))
		return err
	}
	lora, err := p.loraField(context.Background())
	if err != nil {
		return err
	}
	body := NewChatBody(mc, req)
	js, err := json.Marshal(body)
	if err != nil {
		return err
	}
	extra := map[string]any{"temperature": *body.Temperature}
	if lora != nil {
		extra["lora"] = lora
	}
	hreq, err := http.NewRequest(http.MethodPost, mc.BaseURL+"/chat/completions", bytes.NewReader(js))
	if err != nil {
		return err
	}
	_, err = patchBody(hreq, extra)
	return err
}
