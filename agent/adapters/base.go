package adapters

import (
	"regexp"
	"strings"
)

// quantSuffix is a quantisation or format tag at the end of a model name
// (qwen3:1.7b-q4_K_M, Qwen3-1.7B-GGUF, model-f16): the same base model,
// stored differently.
var quantSuffix = regexp.MustCompile(`[-_.:](q\d\w*|iq\d\w*|f16|fp16|bf16|f32|fp32|gguf|instruct-gguf)$`)

// baseKey is a model name reduced to what names the model across the
// spellings of Hugging Face, Ollama and llama.cpp: lower case, without
// the organisation (Qwen/), a path's directories or a .gguf extension,
// without a quantisation tag, and without punctuation. "Qwen/Qwen3-1.7B"
// and Ollama's "qwen3:1.7b" are both "qwen317b".
func baseKey(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	m = strings.TrimRight(m, "/")
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	m = strings.TrimSuffix(m, ".gguf")
	for {
		loc := quantSuffix.FindStringIndex(m)
		if loc == nil {
			break
		}
		m = m[:loc[0]]
	}
	var b strings.Builder
	for _, r := range m {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// SameBaseModel reports whether an adapter trained on trained can run on
// the model served as served.
func SameBaseModel(trained, served string) bool {
	k := baseKey(trained)
	return k != "" && k == baseKey(served)
}
