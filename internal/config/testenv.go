package config

import (
	"regexp"
	"slices"
	"strings"
)

// Sandbox modes, [testing] sandbox.
const (
	SandboxAuto  = "auto"  // bubblewrap when it works on this machine, else none with a warning
	SandboxBwrap = "bwrap" // bubblewrap, or no test runs at all
	SandboxNone  = "none"  // the user's explicit opt-out: tests run unconfined
)

// SandboxModes are the values [testing] sandbox takes.
var SandboxModes = []string{SandboxAuto, SandboxBwrap, SandboxNone}

// DefaultEnvPassthrough are the variables a test command gets from cra's
// environment without being listed in [testing] env_passthrough: what
// shells, toolchains and package managers need to find themselves
// (a trailing * matches any suffix). Nothing else passes, so no model or
// teacher API key reaches a test.
var DefaultEnvPassthrough = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "LC_*", "TZ", "TERM", "TMPDIR", "CI",
	"GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOPROXY", "GOPRIVATE", "GONOPROXY", "GONOSUMDB", "GOSUMDB",
	"GOTOOLCHAIN", "GOWORK", "GO111MODULE", "GOTMPDIR", "GOINSECURE", "CGO_*", "CC", "CXX", "PKG_CONFIG_PATH", "LD_LIBRARY_PATH",
	"PYTHONPATH", "PYTHONHOME", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "PYTHONUNBUFFERED", "PYTHONIOENCODING", "PYTHONWARNINGS",
	"PYTEST_ADDOPTS", "VIRTUAL_ENV", "CONDA_*", "PYENV_*", "UV_*", "PIP_*",
	"NODE_PATH", "NODE_OPTIONS", "NODE_ENV", "NPM_CONFIG_*", "NVM_*",
	"CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "RUSTFLAGS", "JAVA_HOME",
	"SSL_CERT_FILE", "SSL_CERT_DIR",
}

// secretName is a variable name that looks like it holds a credential: it
// passes only when env_passthrough names it exactly, never by a pattern.
var secretName = regexp.MustCompile(`(?i)(key|token|secret|passw|credential|auth)`)

// Environ is the environment a test command runs with, from environ (as
// os.Environ gives it): the variables DefaultEnvPassthrough or
// env_passthrough name, less those whose name looks like a credential
// unless env_passthrough names it exactly.
func (t Testing) Environ(environ []string) []string {
	allowed := append(slices.Clone(DefaultEnvPassthrough), t.EnvPassthrough...)
	var out []string
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if slices.Contains(t.EnvPassthrough, name) {
			out = append(out, kv)
			continue
		}
		if secretName.MatchString(name) {
			continue
		}
		if slices.ContainsFunc(allowed, func(p string) bool {
			prefix, wild := strings.CutSuffix(p, "*")
			return name == p || wild && strings.HasPrefix(name, prefix)
		}) {
			out = append(out, kv)
		}
	}
	return out
}
