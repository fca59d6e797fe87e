package adapters

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
)

// vllmRanks are the values vLLM's --max-lora-rank accepts (MaxLoRARanks
// in vllm/config/lora.py).
var vllmRanks = []int{1, 8, 16, 32, 64, 128, 256, 320, 512}

// GGUFFile is where serve-config tells llama.cpp and Ollama users to
// write an adapter converted to GGUF: inside its directory, so the
// router, which knows the directory, finds it among llama-server's
// loaded adapters.
const GGUFFile = "adapter_model.gguf"

// ServeConfig is what to run to serve adapters on server (config.Server*),
// as shell lines and comments: vLLM's command line, llama-server's with
// the adapter ids in load order, or an Ollama Modelfile and `ollama
// create` line per adapter. cfg gives the Ollama model each stage's
// base is served as.
func ServeConfig(server string, adapters []kb.AdapterRow, cfg config.Config) (string, error) {
	if len(adapters) == 0 {
		return "", usage.Errorf("no adapters to serve: register one with `cra adapters add` (see `cra adapters list`)")
	}
	for _, a := range adapters[1:] {
		if !SameBaseModel(a.BaseModel, adapters[0].BaseModel) {
			return "", usage.Errorf("%s is trained on %s and %s on %s: one server serves one base model; name the adapters of each",
				adapters[0].Ref(), adapters[0].BaseModel, a.Ref(), a.BaseModel)
		}
	}
	switch server {
	case config.ServerVLLM:
		return vllm(adapters)
	case config.ServerLlamaCpp:
		return llamaCpp(adapters), nil
	case config.ServerOllama:
		return ollama(adapters, cfg)
	}
	return "", usage.Errorf("--server %q: use %s", server, strings.Join(config.Servers(), ", "))
}

func served(a kb.AdapterRow) string {
	return config.Adapter{Name: a.Name, Version: a.Version}.ServedName()
}

// vllm is one `vllm serve` with every adapter a --lora-modules JSON
// object, the largest rank rounded up to one vLLM accepts, and room for
// all of them in one batch (--max-loras).
func vllm(adapters []kb.AdapterRow) (string, error) {
	rank := 0
	for _, a := range adapters {
		rank = max(rank, a.Rank)
	}
	i := slices.IndexFunc(vllmRanks, func(r int) bool { return r >= rank })
	if i < 0 {
		return "", usage.Errorf("rank %d is above the largest vLLM serves (%d): serve these adapters another way", rank, vllmRanks[len(vllmRanks)-1])
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# vLLM: requests name an adapter as their model (NAME-vVERSION); cra's router does.\n")
	fmt.Fprintf(&b, "vllm serve %s \\\n  --enable-lora \\\n  --max-lora-rank %d \\\n  --max-loras %d \\\n  --lora-modules",
		shellQuote(adapters[0].BaseModel), vllmRanks[i], len(adapters))
	for _, a := range adapters {
		m, err := json.Marshal(struct {
			Name string `json:"name"`
			Path string `json:"path"`
			Base string `json:"base_model_name"`
		}{served(a), a.Path, a.BaseModel})
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, " \\\n    %s", shellQuote(string(m)))
	}
	b.WriteString("\n")
	return b.String(), nil
}

// llamaCpp is one llama-server loading every adapter without applying it;
// a request applies its adapter by id, the order of the --lora flags.
func llamaCpp(adapters []kb.AdapterRow) string {
	var b strings.Builder
	b.WriteString("# llama.cpp's server loads GGUF adapters only: convert each PEFT directory first with\n" +
		"# llama.cpp's convert_lora_to_gguf.py (--base-model-id, or --base with the base model's directory):\n")
	for _, a := range adapters {
		fmt.Fprintf(&b, "python convert_lora_to_gguf.py --base-model-id %s --outfile %s %s\n",
			shellQuote(a.BaseModel), shellQuote(filepath.Join(a.Path, GGUFFile)), shellQuote(a.Path))
	}
	fmt.Fprintf(&b, "\n# BASE.gguf: %s as GGUF (convert_hf_to_gguf.py).\nllama-server -m BASE.gguf", adapters[0].BaseModel)
	for _, a := range adapters {
		fmt.Fprintf(&b, " \\\n  --lora %s", shellQuote(filepath.Join(a.Path, GGUFFile)))
	}
	b.WriteString(" \\\n  --lora-init-without-apply\n\n")
	b.WriteString("# Adapter ids, in load order: a request applies one with \"lora\": [{\"id\": ID, \"scale\": 1.0}]; cra's router does.\n")
	for i, a := range adapters {
		fmt.Fprintf(&b, "#   %d  %s  %s\n", i, served(a), a.Ref())
	}
	return b.String()
}

// ollama is a Modelfile per adapter over the Ollama model that serves its
// stages, and the `ollama create` line that makes NAME-vVERSION.
func ollama(adapters []kb.AdapterRow, cfg config.Config) (string, error) {
	var b strings.Builder
	b.WriteString("# Ollama: one model per adapter, named NAME-vVERSION; cra's router sends the stage to it.\n" +
		"# ADAPTER takes a safetensors adapter directory for the architectures Ollama imports (Llama, Mistral, Gemma);\n" +
		"# for others, convert it with llama.cpp's convert_lora_to_gguf.py and use ADAPTER " + GGUFFile + " in its directory.\n")
	router := llm.NewRouter(cfg)
	for _, a := range adapters {
		stage := a.Stages[0]
		m, err := router.Resolve(llm.StageRole(stage), stage)
		if err != nil {
			return "", usage.Wrap(err)
		}
		file := served(a) + ".Modelfile"
		fmt.Fprintf(&b, "\ncat > %s <<'EOF'\nFROM %s\nADAPTER %s\nEOF\nollama create %s -f %s\n",
			file, m.Model, a.Path, served(a), file)
	}
	return b.String(), nil
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
