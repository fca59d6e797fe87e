package llm_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/fakellm"
)

const (
	testKeyEnv = "CRA_TEST_TEACHER_KEY"
	testKey    = "sk-test-9f8e7d6c5b4a-SECRET"
)

// providers are the three providers as tests configure them against a fake.
var providers = []struct {
	name    string
	baseURL func(*fakellm.Server) string
}{
	{llm.ProviderOllama, (*fakellm.Server).OllamaURL},
	{llm.ProviderOpenAICompat, (*fakellm.Server).OpenAIURL},
	{llm.ProviderRemoteAPI, (*fakellm.Server).OpenAIURL},
}

// sleeps records the waits a client asks for and returns at once.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

func lookupKey(name string) (string, bool) {
	if name == testKeyEnv {
		return testKey, true
	}
	return "", false
}

// config is a working config for provider against srv.
func config(provider string, srv *fakellm.Server) llm.ModelConfig {
	cfg := llm.ModelConfig{Provider: provider, Model: "qwen3:1.7b", MaxRetries: 3, Timeout: 10 * time.Second,
		MaxConcurrency: 4, MaxTokens: 256, ContextWindow: 8192}
	for _, p := range providers {
		if p.name == provider {
			cfg.BaseURL = p.baseURL(srv)
		}
	}
	if provider == llm.ProviderRemoteAPI {
		cfg.APIKeyEnv = testKeyEnv
	}
	return cfg
}

// newClient builds a client whose waits are recorded, not slept.
func newClient(t *testing.T, cfg llm.ModelConfig, opts ...llm.Option) (llm.Client, *sleeps) {
	t.Helper()
	s := &sleeps{}
	// The next test's server may get this one's port: it must not find
	// this test's cool-down (set by another clock) on it.
	t.Cleanup(func() { llm.ForgetCooldown(cfg) })
	opts = append([]llm.Option{llm.WithSleep(s.sleep), llm.WithLookupEnv(lookupKey)}, opts...)
	c, err := llm.New(cfg, opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, s
}

func asError(t *testing.T, err error) *llm.Error {
	t.Helper()
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
	}
	return e
}

func ptr[T any](v T) *T { return &v }
