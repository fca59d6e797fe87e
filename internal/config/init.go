package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ModelChoice is what `cra init --provider ... --coding-model ...` sets;
// empty fields keep the current value.
type ModelChoice struct {
	Provider, BaseURL, Coding, Reasoning, APIKeyEnv string
}

func (m ModelChoice) empty() bool { return m == ModelChoice{} }

// InitFile writes config.toml at path. A new file gets the commented
// template with choice applied. An existing file is left alone unless choice
// sets something: then it is loaded, changed, validated, and rewritten
// (the old one kept as config.toml.bak). Returns what it did.
func InitFile(path string, choice ModelChoice) (string, error) {
	cfg := Default()
	_, err := os.Stat(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if exists {
		if choice.empty() {
			return "kept", nil
		}
		if cfg, err = Load(path); err != nil {
			return "", err
		}
	}
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&cfg.Models.Provider, choice.Provider)
	set(&cfg.Models.BaseURL, choice.BaseURL)
	set(&cfg.Models.Coding, choice.Coding)
	set(&cfg.Models.Reasoning, choice.Reasoning)
	set(&cfg.Models.APIKeyEnv, choice.APIKeyEnv)
	if errs := cfg.Validate(path); len(errs) > 0 {
		return "", errors.Join(errs...)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	action := "created"
	if exists {
		if err := os.Rename(path, path+".bak"); err != nil {
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		action = "updated (previous kept as config.toml.bak)"
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(Template(cfg)), 0o644); err != nil {
		return "", err
	}
	return action, os.Rename(tmp, path)
}
