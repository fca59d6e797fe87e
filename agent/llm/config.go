package llm

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/cra-dev/cra/internal/config"
)

// Providers.
const (
	ProviderOllama       = "ollama"        // Ollama's native API (local)
	ProviderOpenAICompat = "openai_compat" // vLLM, llama-server: Model selects a LoRA adapter
	ProviderRemoteAPI    = "remote_api"    // teacher models behind an OpenAI-compatible API
)

var providers = []string{ProviderOllama, ProviderOpenAICompat, ProviderRemoteAPI}

// Providers lists the valid ModelConfig.Provider values.
func Providers() []string { return slices.Clone(providers) }

// Defaults New applies to zero fields (they match internal/config's).
const (
	DefaultOllamaURL      = "http://localhost:11434"
	DefaultTimeout        = 5 * time.Minute
	DefaultMaxConcurrency = 2
)

// ModelConfig is one resolved model: which server, which model, and how to
// call it. The model router builds it from config.toml.
type ModelConfig struct {
	// Provider is one of Providers(); empty means ollama.
	Provider string
	// BaseURL is the server root for ollama (default DefaultOllamaURL) and
	// the API base including /v1 for the OpenAI providers (required).
	BaseURL string
	// Model is the model tag (ollama), served model or LoRA adapter name
	// (openai_compat), or remote model name. With an Adapter it is the
	// base model the adapter was trained on.
	Model string
	// Adapter is the registered LoRA adapter that answers instead of the
	// base model (the stage's champion); nil for the base model. Each
	// Server is asked for it its own way (RequestModel, loraField), and
	// the logged client records it.
	Adapter *config.Adapter
	// Server is the server that loads adapters (config.ServerVLLM,
	// ServerLlamaCpp, ServerOllama; "" for none). llama.cpp's is told
	// which adapters to apply on every request, the base model's too.
	Server string
	// Temperature is used when a Request leaves its own nil.
	Temperature float64
	// MaxTokens caps completion tokens when a Request leaves its own 0;
	// 0 here too means the server's default.
	MaxTokens int
	// ContextWindow is sent to Ollama as num_ctx (its own default is small
	// and silently truncates prompts); 0 leaves the server default. The
	// logged client refuses, unsent, a call whose prompt and completion
	// cannot fit it (a hard gate: no call is ever truncated).
	ContextWindow int
	// SafetyMargin is the token estimate's margin for that gate
	// ([budget] safety_margin).
	SafetyMargin float64
	// APIKeyEnv names the environment variable holding the API key:
	// required for remote_api, optional for openai_compat, unused by ollama.
	// The key is read once by New and never stored anywhere else.
	APIKeyEnv string
	// Timeout bounds each attempt (one HTTP request); 0 means DefaultTimeout.
	Timeout time.Duration
	// Think lets a thinking model think before answering; false asks it
	// not to (Ollama "think": false, vLLM enable_thinking false).
	Think bool
	// MaxRetries is how many times a retryable failure is retried: a call
	// makes at most MaxRetries+1 attempts. 0 means no retry.
	MaxRetries int
	// MaxConcurrency bounds the calls in progress at once on one client;
	// 0 means DefaultMaxConcurrency.
	MaxConcurrency int
}

// normalize applies defaults and checks cfg, returning errors wrapping
// ErrInvalidConfig.
func (cfg ModelConfig) normalize() (ModelConfig, error) {
	if cfg.Provider == "" {
		cfg.Provider = ProviderOllama
	}
	if !slices.Contains(providers, cfg.Provider) {
		return cfg, fmt.Errorf("%w: unknown provider %q: use one of %s",
			ErrInvalidConfig, cfg.Provider, strings.Join(providers, ", "))
	}
	if cfg.BaseURL == "" && cfg.Provider == ProviderOllama {
		cfg.BaseURL = DefaultOllamaURL
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return cfg, fmt.Errorf("%w: %s: no model name", ErrInvalidConfig, cfg.Provider)
	}
	if err := cfg.checkServer(); err != nil {
		return cfg, err
	}
	if cfg.BaseURL == "" {
		return cfg, fmt.Errorf("%w: %s model %s: no base URL (e.g. http://localhost:8000/v1)",
			ErrInvalidConfig, cfg.Provider, cfg.Model)
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return cfg, fmt.Errorf("%w: %s model %s: base URL %q is not an http(s) URL",
			ErrInvalidConfig, cfg.Provider, cfg.Model, cfg.BaseURL)
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	switch {
	case cfg.MaxRetries < 0:
		return cfg, fmt.Errorf("%w: max retries %d is negative", ErrInvalidConfig, cfg.MaxRetries)
	case cfg.Timeout < 0:
		return cfg, fmt.Errorf("%w: timeout %v is negative", ErrInvalidConfig, cfg.Timeout)
	case cfg.MaxConcurrency < 0:
		return cfg, fmt.Errorf("%w: max concurrency %d is negative", ErrInvalidConfig, cfg.MaxConcurrency)
	case cfg.MaxTokens < 0 || cfg.ContextWindow < 0:
		return cfg, fmt.Errorf("%w: max tokens and context window must not be negative", ErrInvalidConfig)
	case cfg.Provider == ProviderRemoteAPI && cfg.APIKeyEnv == "":
		return cfg, fmt.Errorf("%w: remote_api model %s: no api_key_env naming the environment variable that holds the API key",
			ErrInvalidConfig, cfg.Model)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxConcurrency == 0 {
		cfg.MaxConcurrency = DefaultMaxConcurrency
	}
	return cfg, nil
}

// apiKey reads the key named by cfg.APIKeyEnv. The error names the variable,
// never a value.
func (cfg ModelConfig) apiKey(lookup func(string) (string, bool)) (string, error) {
	if cfg.APIKeyEnv == "" || cfg.Provider == ProviderOllama {
		return "", nil
	}
	key, ok := lookup(cfg.APIKeyEnv)
	if !ok || strings.TrimSpace(key) == "" {
		what := "is not set"
		if ok {
			what = "is empty"
		}
		return "", fmt.Errorf("%w: %s model %s: environment variable %s %s: export the API key in it before running",
			ErrInvalidConfig, cfg.Provider, cfg.Model, cfg.APIKeyEnv, what)
	}
	return strings.TrimSpace(key), nil
}

// checkServer refuses an adapter the provider cannot ask for: Ollama's
// adapters through the ollama provider, vLLM's and llama.cpp's through
// openai_compat.
func (cfg ModelConfig) checkServer() error {
	if cfg.Adapter == nil && cfg.Server == "" {
		return nil
	}
	want := ""
	switch cfg.Server {
	case config.ServerOllama:
		want = ProviderOllama
	case config.ServerVLLM, config.ServerLlamaCpp:
		want = ProviderOpenAICompat
	}
	if want == "" && cfg.Adapter != nil {
		return fmt.Errorf("%w: adapter %s: no server to ask for it (server %q): set [adapters] server to one of %s",
			ErrInvalidConfig, cfg.Adapter, cfg.Server, strings.Join(config.Servers(), ", "))
	}
	if want != "" && cfg.Provider != want {
		return fmt.Errorf("%w: the %s server loads adapters through the %s provider, not %s: fix [adapters] server or models.provider",
			ErrInvalidConfig, cfg.Server, want, cfg.Provider)
	}
	return nil
}

// RequestModel is the model a request names: the adapter's served name
// where the server selects adapters by model (vLLM's --lora-modules
// name, the Ollama model `ollama create` made), else the base model
// (llama.cpp's server takes the adapter in the body's lora list).
func (cfg ModelConfig) RequestModel() string {
	if cfg.Adapter != nil && (cfg.Server == config.ServerVLLM || cfg.Server == config.ServerOllama) {
		return cfg.Adapter.ServedName()
	}
	return cfg.Model
}
