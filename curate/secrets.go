package curate

import "regexp"

// secretPatterns are credential formats that must never reach a dataset
// as found: cloud keys, tokens, private key blocks and quoted high-entropy
// values assigned to names such as api_key or password.
var secretPatterns = []*regexp.Regexp{
	regexp.MustCompile(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`),                                               // AWS access key id
	regexp.MustCompile(`\b(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}\b|\bgithub_pat_[A-Za-z0-9_]{22,}`), // GitHub tokens
	regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{20,}`),                                                // GitLab
	regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`),                                            // Slack
	regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`),                                                 // Google API key
	regexp.MustCompile(`\bsk-(proj-|ant-)?[A-Za-z0-9_-]{20,}`),                                      // OpenAI / Anthropic style
	regexp.MustCompile(`\bsk_(live|test)_[0-9a-zA-Z]{24,}`),                                         // Stripe
	regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`),        // JWT
	regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----`),
	regexp.MustCompile(`(?i)\b(api[_-]?key|secret[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|password|passwd)\b["']?\s*[:=]\s*["'][A-Za-z0-9_\-/+=.]{16,}["']`),
}

// redaction replaces a secret in redact mode.
const redaction = "[REDACTED]"

// hasSecret reports whether any text holds a credential.
func hasSecret(texts ...string) bool {
	for _, t := range texts {
		for _, re := range secretPatterns {
			if re.MatchString(t) {
				return true
			}
		}
	}
	return false
}

// redact replaces every credential in t.
func redact(t string) string {
	for _, re := range secretPatterns {
		t = re.ReplaceAllString(t, redaction)
	}
	return t
}
