package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cra-dev/cra/internal/config"
)

// llama.cpp's server (tools/server/README.md of ggml-org/llama.cpp) loads
// its adapters at start (--lora FILE.gguf, one flag per adapter) and says
// which with GET /lora-adapters: [{"id": 0, "path": "FILE.gguf", "scale":
// 1.0}, ...] at the server root, not under /v1. A request picks adapters
// with its "lora" field, [{"id": ID, "scale": S}] — a /completion option
// that /v1/chat/completions takes too ("llama.cpp /completion-specific
// features ... are also supported") — and "if a LoRA adapter is not
// specified in the list, its scale will default to 0.0", overriding the
// global scales (by default every loaded adapter is applied at scale 1,
// unless the server was started with --lora-init-without-apply). So a
// routed call sends its adapter's id at scale 1 and every other call an
// empty list: the base model, whatever the server applies globally.

// LoRA is one entry of a llama.cpp request's "lora" list.
type LoRA struct {
	ID    int     `json:"id"`
	Scale float64 `json:"scale"`
}

// loadedLoRA is one adapter GET /lora-adapters lists.
type loadedLoRA struct {
	ID   int    `json:"id"`
	Path string `json:"path"`
}

// loraIndex is the adapters a llama.cpp server loaded, read once per
// client (the server loads adapters only when it starts).
type loraIndex struct {
	mu     sync.Mutex
	loaded []loadedLoRA // nil until read
}

// loraField is the "lora" list of a request of cfg on llama.cpp's
// server: empty for the base model, the adapter's id at scale 1 for an
// adapter; nil (no field) on any other server.
func (p *openAI) loraField(ctx context.Context) ([]LoRA, error) {
	cfg := p.c.cfg
	if cfg.Server != config.ServerLlamaCpp {
		return nil, nil
	}
	if cfg.Adapter == nil {
		return []LoRA{}, nil
	}
	loaded, err := p.loras.read(ctx, p.c)
	if err != nil {
		return nil, err
	}
	id, ok := loraID(loaded, cfg.Adapter.Path)
	if !ok {
		return nil, &failure{err: &kindError{kind: ErrModelNotFound, msg: notLoaded(cfg, loaded)}}
	}
	return []LoRA{{ID: id, Scale: 1}}, nil
}

// read returns the server's loaded adapters, asking it the first time.
// A failed read is not kept: the next call asks again.
func (x *loraIndex) read(ctx context.Context, c *client) ([]loadedLoRA, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.loaded != nil {
		return x.loaded, nil
	}
	url := serverRoot(c.cfg.BaseURL) + "/lora-adapters"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err // a transport error: classified and retried as any
	}
	defer resp.Body.Close()
	raw, _, err := readAnswer(resp.Body, 1<<20)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, c.statusFailure(resp.StatusCode, resp.Header,
			fmt.Sprintf("GET %s: %s (is [adapters] server right? only llama.cpp's server lists its adapters there)", url, strings.TrimSpace(string(raw))), nil)
	}
	var loaded []loadedLoRA
	if err := json.Unmarshal(raw, &loaded); err != nil {
		return nil, c.malformed(raw, fmt.Errorf("GET %s: %w", url, err))
	}
	if loaded == nil {
		loaded = []loadedLoRA{}
	}
	x.loaded = loaded
	return loaded, nil
}

// loraID is the id of the adapter at dir: the server lists the file it
// was given (--lora DIR/FILE.gguf, a conversion of the PEFT weights kept
// beside them) or, as some launchers pass it, the directory itself.
func loraID(loaded []loadedLoRA, dir string) (int, bool) {
	dir = filepath.Clean(dir)
	for _, l := range loaded {
		p := filepath.Clean(l.Path)
		if p == dir || filepath.Dir(p) == dir {
			return l.ID, true
		}
	}
	return 0, false
}

// notLoaded says which adapter the server lacks, what it has, and what
// to do.
func notLoaded(cfg ModelConfig, loaded []loadedLoRA) string {
	have := "none"
	if len(loaded) > 0 {
		parts := make([]string, len(loaded))
		for i, l := range loaded {
			parts[i] = fmt.Sprintf("%d %s", l.ID, l.Path)
		}
		have = strings.Join(parts, ", ")
	}
	return fmt.Sprintf("adapter %s is not loaded by the llama.cpp server at %s: no adapter under %s among GET /lora-adapters (%s) — "+
		"restart llama-server with --lora %s/<adapter>.gguf (`cra adapters serve-config` prints the command)",
		cfg.Adapter, serverRoot(cfg.BaseURL), cfg.Adapter.Path, have, filepath.Clean(cfg.Adapter.Path))
}

// serverRoot is the server's root URL: the OpenAI API base without /v1.
func serverRoot(base string) string { return strings.TrimSuffix(strings.TrimRight(base, "/"), "/v1") }
