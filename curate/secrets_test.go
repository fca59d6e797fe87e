package curate

import (
	"strings"
	"testing"
)

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
		if got := hasSecret(text); got != want {
			t.Errorf("hasSecret(%q) = %v, want %v", text, got, want)
		}
		if want && redact(text) == text {
			t.Errorf("redact(%q) left it as it was", text)
		}
	}
}

// Distill applies [curate] secrets to the prompts before any becomes a
// request: redacted in redact mode, the item left out (and counted) in
// drop mode, a prompt without a credential untouched in either.
func TestWithoutSecrets(t *testing.T) {
	const key = `ACCESS_KEY_ID = "AKIAIOSFODNN7EXAMPLE"`
	for _, tc := range []struct {
		mode    string
		wantIDs []string
		wantMsg map[string]string // item id -> user prompt after
		dropped int
	}{
		{"redact", []string{"clean", "secret"}, map[string]string{"clean": "fix it", "secret": "ACCESS_KEY_ID = " + `"` + redaction + `"`}, 0},
		{"drop", []string{"clean"}, map[string]string{"clean": "fix it"}, 1},
	} {
		items := []*item{{id: "clean", system: "sys", user: "fix it"}, {id: "secret", system: "sys", user: key}}
		skipped := map[string]int{}
		got := withoutSecrets(items, tc.mode, skipped)
		var ids []string
		for _, it := range got {
			ids = append(ids, it.id)
			if it.user != tc.wantMsg[it.id] {
				t.Errorf("%s: item %s prompt %q, want %q", tc.mode, it.id, it.user, tc.wantMsg[it.id])
			}
		}
		if strings.Join(ids, ",") != strings.Join(tc.wantIDs, ",") || skipped[DropSecret] != tc.dropped {
			t.Errorf("%s: kept %v, skipped %v; want %v and %d dropped", tc.mode, ids, skipped, tc.wantIDs, tc.dropped)
		}
	}
}
