package secrets

import "testing"

func TestSecrets(t *testing.T) {
	for text, want := range map[string]bool{
		`key = "AKIAIOSFODNN7EXAMPLE"`:                                            true,
		"token: ghp_abcdefghijklmnopqrstuvwxyz0123456789AB":                       true,
		"xoxb-123456789012-abcdefghij":                                            true,
		"AIzaSyA-abcdefghijklmnopqrstuvwxyz01234":                                 true,
		"OPENAI = 'sk-proj-abcdefghijklmnopqrstuvwx'":                             true,
		"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----":    true,
		`API_KEY = "f3a9c2e8b1d4f6a7c9e2b4d6"`:                                    true,
		`"password": "correct-horse-battery-staple"`:                              true,
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N": true,
		`api_key = os.environ["API_KEY"]`:                                         false,
		`password = ""`:                                                           false,
		"the key of the map is the token count":                                   false,
		"AKIA is how AWS keys start":                                              false,
	} {
		if got := Has(text); got != want {
			t.Errorf("Has(%q) = %v, want %v", text, got, want)
		}
		if want && Redact(text) == text {
			t.Errorf("redact(%q) left it as it was", text)
		}
	}
}
