package llm

import (
	"errors"
	"sync"
)

// StageClients are a run's model clients, one per stage (a stage may have
// its own model: [models.overrides]), each logging its calls and refusing
// prompts over its window (the hard gate, with margin).
type StageClients struct {
	router    *Router
	newClient func(ModelConfig) (Client, error)
	margin    float64
	log       CallLog
	mu        sync.Mutex
	byStage   map[string]*Logged
}

// NewStageClients builds clients on demand through newClient (nil: New).
func NewStageClients(router *Router, newClient func(ModelConfig) (Client, error), margin float64, log CallLog) *StageClients {
	if newClient == nil {
		newClient = func(cfg ModelConfig) (Client, error) { return New(cfg) }
	}
	return &StageClients{router: router, newClient: newClient, margin: margin, log: log, byStage: map[string]*Logged{}}
}

// Get is the client of stage.
func (s *StageClients) Get(stage string) (Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.byStage[stage]; c != nil {
		return c, nil
	}
	cfg, err := s.router.Resolve(StageRole(stage), stage)
	if err != nil {
		return nil, err
	}
	cfg.SafetyMargin = s.margin
	inner, err := s.newClient(cfg)
	if err != nil {
		return nil, err
	}
	c := NewLogged(inner, cfg, s.log)
	s.byStage[stage] = c
	return c, nil
}

// Mask is s with the API key of every client built so far masked, as
// their logged rows have it: for what a run stores beside its calls (an
// answer, a diff or a test's output that repeats a key).
func (s *StageClients) Mask(text string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.byStage {
		text = c.Mask(text)
	}
	return text
}

// Tokens sums the tokens the providers reported for the calls so far.
func (s *StageClients) Tokens() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for _, c := range s.byStage {
		n += c.Tokens()
	}
	return n
}

// Flush writes the rows of every call made so far.
func (s *StageClients) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, c := range s.byStage {
		errs = append(errs, c.Flush())
	}
	return errors.Join(errs...)
}

// Close closes every client, writing the calls still queued.
func (s *StageClients) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, c := range s.byStage {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}
