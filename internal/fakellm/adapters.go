package fakellm

import (
	"fmt"
	"net/http"
	"sort"
)

// AdapterBehaviour is how a LoRA adapter loaded by the server answers in
// oracle mode: its own planted error rate for the stages it changes (a
// stage it does not list keeps the oracle's rate), so a test can serve a
// good adapter and a bad one beside the base model and see each in the
// scores.
type AdapterBehaviour struct {
	// Path is the adapter as llama.cpp's server lists it (GET
	// /lora-adapters); "" is /adapters/<served name>/adapter.gguf.
	Path string
	// ErrorRate is stage → share of its requests answered wrong.
	ErrorRate map[string]float64
}

// LoRA is one entry of a llama.cpp request's "lora" list.
type LoRA struct {
	ID    int     `json:"id"`
	Scale float64 `json:"scale"`
}

// loadedAdapter is an adapter as the server loaded it.
type loadedAdapter struct {
	name string // served name
	id   int    // llama.cpp's id: its place among the served names, sorted
	AdapterBehaviour
}

// SetAdapters loads adapters under their served names, as the three
// servers cra routes to would: a request asks for one by its OpenAI
// "model" (vLLM's --lora-modules name), by its id in the body's "lora"
// list (llama.cpp's server, ids and paths from GET /lora-adapters), or
// by its Ollama "model" (the model `ollama create` made). A recorded
// Request's Adapter names the one asked for.
//
// A server with adapters knows what it serves: a chat request for a
// model that is neither a served name nor one of SetModels' names is
// answered 404 in its format, and a "lora" id it did not load 400.
func (s *Server) SetAdapters(adapters map[string]AdapterBehaviour) {
	names := make([]string, 0, len(adapters))
	for n := range adapters {
		names = append(names, n)
	}
	sort.Strings(names)
	loaded := make([]loadedAdapter, len(names))
	for i, n := range names {
		b := adapters[n]
		if b.Path == "" {
			b.Path = "/adapters/" + n + "/adapter.gguf"
		}
		loaded[i] = loadedAdapter{name: n, id: i, AdapterBehaviour: b}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.adapters = loaded
}

// adapter is the loaded adapter served as name.
func (s *Server) adapter(name string) (loadedAdapter, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.adapters {
		if a.name == name {
			return a, true
		}
	}
	return loadedAdapter{}, false
}

// placeAdapter sets req.Adapter from whichever of the three shapes the
// request has, or req.refusal when it asks for what is not loaded.
func (s *Server) placeAdapter(req *Request) {
	if req.DecodeError != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.adapters) == 0 {
		return
	}
	for _, l := range req.LoRA {
		if l.Scale == 0 {
			continue // llama.cpp: scale 0 is the adapter switched off
		}
		if l.ID < 0 || l.ID >= len(s.adapters) {
			req.refusal = &Reply{Status: http.StatusBadRequest,
				Error: fmt.Sprintf("invalid adapter id %d: %d adapters are loaded", l.ID, len(s.adapters))}
			return
		}
		req.Adapter = s.adapters[l.ID].name
		return
	}
	for _, a := range s.adapters {
		if a.name == req.Model {
			req.Adapter = a.name
			return
		}
	}
	for _, m := range s.models {
		if m == req.Model {
			return
		}
	}
	req.refusal = &Reply{Status: http.StatusNotFound}
}

// writeLoRAAdapters answers GET /lora-adapters as llama.cpp's server does:
// every loaded adapter's id, path and global scale (0: applied only when
// a request's "lora" asks for it).
func (s *Server) writeLoRAAdapters(w http.ResponseWriter) {
	s.mu.Lock()
	list := make([]map[string]any, 0, len(s.adapters))
	for _, a := range s.adapters {
		list = append(list, map[string]any{"id": a.id, "path": a.Path, "scale": 0.0})
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, list)
}

// servedNames are the loaded adapters' served names.
func (s *Server) servedNames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.adapters))
	for i, a := range s.adapters {
		out[i] = a.name
	}
	return out
}

// errorRate is the planted error rate of stage for req: its adapter's
// when the adapter has one for the stage, else the oracle's.
func (s *Server) errorRate(o Oracle, req Request, stage string) float64 {
	if req.Adapter != "" {
		if a, ok := s.adapter(req.Adapter); ok {
			if r, ok := a.ErrorRate[stage]; ok {
				return r
			}
		}
	}
	return o.ErrorRate[stage]
}
