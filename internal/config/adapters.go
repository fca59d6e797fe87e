package config

import "fmt"

// Inference servers that load LoRA adapters, each with its own way of
// choosing one per request: `cra adapters serve-config` prints how to
// start each, and the model router sends a stage's calls to its champion.
const (
	ServerVLLM     = "vllm"     // openai_compat: the request's model is the adapter's served name
	ServerLlamaCpp = "llamacpp" // openai_compat: the request carries lora [{id, scale}]
	ServerOllama   = "ollama"   // ollama: the request's model is the model `ollama create` made
)

// Servers lists the servers adapters can be served by.
func Servers() []string { return []string{ServerVLLM, ServerLlamaCpp, ServerOllama} }

// Adapter is a registered LoRA adapter version as the router sends a
// stage to it and the logged calls record it.
type Adapter struct {
	Name    string // the registry's name (cra adapters add NAME)
	Version int    // the registry's version of NAME, from 1
	SHA256  string // of the weights file, hex
	Path    string // the adapter's directory (llama.cpp's loaded adapters are matched by it)
}

// ServedName is the name a server knows the adapter by: vLLM's
// --lora-modules name (and so a request's model) and the model Ollama's
// `ollama create` makes. One name per version, so a server can load a
// champion and a candidate side by side.
func (a Adapter) ServedName() string { return fmt.Sprintf("%s-v%d", a.Name, a.Version) }

// String is NAME@VERSION, as users name a version on the command line.
func (a Adapter) String() string { return fmt.Sprintf("%s@%d", a.Name, a.Version) }

// Champion is the adapter that answers stage: its champion, unless a
// [models.overrides] entry names another model for it, which wins.
func (m Models) Champion(stage string) (Adapter, bool) {
	if stage == "" || m.Overrides[stage] != "" {
		return Adapter{}, false
	}
	a, ok := m.Champions[stage]
	return a, ok
}

// Routed is every stage's Champion: the champions that answer their stage.
func (m Models) Routed() map[string]Adapter {
	out := map[string]Adapter{}
	for stage := range m.Champions {
		if a, ok := m.Champion(stage); ok {
			out[stage] = a
		}
	}
	return out
}
