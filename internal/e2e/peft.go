package e2e

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
)

// WritePEFT writes a LoRA adapter directory as peft's save_pretrained
// does — adapter_config.json (base, r, alpha 2r, two target modules) and
// a small valid adapter_model.safetensors whose one tensor's bytes are
// fill — and returns dir: what `cra adapters add` reads, without a GPU.
func WritePEFT(dir, base string, rank int, fill byte) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	cfg := fmt.Sprintf(`{"base_model_name_or_path": %q, "peft_type": "LORA", "r": %d, "lora_alpha": %d,
		"target_modules": ["q_proj", "v_proj"], "task_type": "CAUSAL_LM"}`, base, rank, 2*rank)
	if err := os.WriteFile(filepath.Join(dir, "adapter_config.json"), []byte(cfg), 0o644); err != nil {
		return "", err
	}
	header := []byte(`{"base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}}`)
	var b []byte
	b = binary.LittleEndian.AppendUint64(b, uint64(len(header)))
	b = append(b, header...)
	for range 16 {
		b = append(b, fill)
	}
	return dir, os.WriteFile(filepath.Join(dir, "adapter_model.safetensors"), b, 0o644)
}
