package adapters

import "testing"

// A base model is the same across Hugging Face, Ollama and llama.cpp
// spellings and quantisations; a different size, version or family is
// not.
func TestSameBaseModel(t *testing.T) {
	for _, c := range []struct {
		trained, served string
		want            bool
	}{
		{"Qwen/Qwen3-1.7B", "qwen3:1.7b", true},
		{"Qwen/Qwen3-1.7B", "Qwen/Qwen3-1.7B", true},
		{"Qwen/Qwen2.5-Coder-7B-Instruct", "qwen2.5-coder:7b-instruct-q4_K_M", true},
		{"/models/Qwen3-1.7B/", "Qwen3-1.7B-Q8_0.gguf", true},
		{"unsloth/Qwen3-1.7B", "qwen3:1.7b-fp16", true},
		{"Qwen/Qwen3-1.7B", "qwen3:4b", false},
		{"Qwen/Qwen3-1.7B", "qwen2.5:1.5b", false},
		{"Qwen/Qwen2.5-Coder-7B-Instruct", "qwen2.5-coder:7b", false},
		{"meta-llama/Llama-3.2-1B", "qwen3:1.7b", false},
		{"", "", false},
	} {
		if got := SameBaseModel(c.trained, c.served); got != c.want {
			t.Errorf("SameBaseModel(%q, %q) = %v (keys %q, %q), want %v", c.trained, c.served, got, baseKey(c.trained), baseKey(c.served), c.want)
		}
	}
}
