package llm

import (
	"sync"
	"time"
)

// cooldown is when a provider and model may be called again after it
// answered 429 with a Retry-After: every call to that provider and model in
// this process — in flight on any client, or starting — waits it out before
// its next attempt, instead of each call learning the limit on its own.
type cooldown struct {
	mu    sync.Mutex
	until time.Time
}

// cooldowns holds one cooldown per provider, URL and model.
var cooldowns sync.Map

func cooldownOf(cfg ModelConfig) *cooldown {
	v, _ := cooldowns.LoadOrStore(cooldownKey(cfg), &cooldown{})
	return v.(*cooldown)
}

func cooldownKey(cfg ModelConfig) string {
	return cfg.Provider + "\x00" + cfg.BaseURL + "\x00" + cfg.Model
}

// extend moves the cooldown to t unless it already runs later.
func (c *cooldown) extend(t time.Time) {
	c.mu.Lock()
	if t.After(c.until) {
		c.until = t
	}
	c.mu.Unlock()
}

// deadline is when the cooldown ends (zero: never started).
func (c *cooldown) deadline() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.until
}
