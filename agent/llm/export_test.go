package llm

// ForgetCooldown drops the process's cooldown of cfg's provider, URL and
// model: a test server may listen on a port an earlier test's server left
// a cooldown on, set by another clock.
func ForgetCooldown(cfg ModelConfig) {
	if cfg, err := cfg.normalize(); err == nil {
		cooldowns.Delete(cooldownKey(cfg))
	}
}
