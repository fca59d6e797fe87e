// Package secrets finds and redacts credentials in text: the one rule of
// [curate] secrets, shared by what cra stores for training (curate) and
// what it sends to a remote model (agent/llm). It must not import any
// other cra package: both of those import it.
package secrets

import (
	"regexp"
	"strings"
)

// secretPattern is a credential format and the literals one of which any
// match contains: a cheap strings.Contains rules most texts out before the
// regular expression runs.
type secretPattern struct {
	re    *regexp.Regexp
	needs []string
	fold  bool // needs are lower case; look in the lower-cased text
}

// secretPatterns are credential formats that must never reach a dataset
// as found: cloud keys, tokens, private key blocks and quoted high-entropy
// values assigned to names such as api_key or password.
var secretPatterns = []secretPattern{
	{re: regexp.MustCompile(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`), needs: []string{"AKIA", "ASIA"}}, // AWS access key id
	{re: regexp.MustCompile(`\b(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}\b|\bgithub_pat_[A-Za-z0-9_]{22,}`),
		needs: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}}, // GitHub
	{re: regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{20,}`), needs: []string{"glpat-"}},        // GitLab
	{re: regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`), needs: []string{"xox"}},       // Slack
	{re: regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`), needs: []string{"AIza"}},           // Google API key
	{re: regexp.MustCompile(`\bsk-(proj-|ant-)?[A-Za-z0-9_-]{20,}`), needs: []string{"sk-"}}, // OpenAI / Anthropic style
	{re: regexp.MustCompile(`\bsk_(live|test)_[0-9a-zA-Z]{24,}`), needs: []string{"sk_live_", "sk_test_"}},
	{re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`), needs: []string{"eyJ"}}, // JWT
	{re: regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----`), needs: []string{"PRIVATE KEY-----"}},
	{re: regexp.MustCompile(`(?i)\b(api[_-]?key|secret[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|password|passwd)\b["']?\s*[:=]\s*["'][A-Za-z0-9_\-/+=.]{16,}["']`),
		needs: []string{"key", "token", "secret", "passw"}, fold: true},
}

// Redaction replaces a secret in redact mode.
const Redaction = "[REDACTED]"

// The [curate] secrets modes.
const (
	ModeRedact = "redact" // a credential is replaced by Redaction
	ModeDrop   = "drop"   // what holds a credential is left out whole
)

func (p secretPattern) mayMatch(text, lower string) bool {
	if p.fold {
		text = lower
	}
	for _, n := range p.needs {
		if strings.Contains(text, n) {
			return true
		}
	}
	return false
}

// Has reports whether any text holds a credential.
func Has(texts ...string) bool {
	for _, t := range texts {
		lower := strings.ToLower(t)
		for _, p := range secretPatterns {
			if p.mayMatch(t, lower) && p.re.MatchString(t) {
				return true
			}
		}
	}
	return false
}

// Redact replaces every credential in t.
func Redact(t string) string {
	for _, p := range secretPatterns {
		if p.mayMatch(t, strings.ToLower(t)) {
			t = p.re.ReplaceAllString(t, Redaction)
		}
	}
	return t
}

// Apply applies [curate] secrets (mode ModeRedact or ModeDrop) to the
// texts of one example or one request, the single rule curate-data and
// distill share: when none holds a credential it does nothing; in drop
// mode it reports keep false and leaves them as they are (the caller
// leaves the whole thing out: nothing of it is stored or sent); otherwise
// it redacts every credential in place. found reports whether any text
// held one.
func Apply(mode string, texts ...*string) (found, keep bool) {
	for _, t := range texts {
		if Has(*t) {
			found = true
			break
		}
	}
	switch {
	case !found:
		return false, true
	case mode == ModeDrop:
		return true, false
	}
	for _, t := range texts {
		*t = Redact(*t)
	}
	return true, true
}
