package distill

import (
	"strings"
	"testing"

	"github.com/cra-dev/cra/curate"
	"github.com/cra-dev/cra/internal/secrets"
)

// A run applies [curate] secrets to the prompts before any becomes a
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
		{"redact", []string{"clean", "secret"}, map[string]string{"clean": "fix it", "secret": "ACCESS_KEY_ID = " + `"` + secrets.Redaction + `"`}, 0},
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
		if strings.Join(ids, ",") != strings.Join(tc.wantIDs, ",") || skipped[curate.DropSecret] != tc.dropped {
			t.Errorf("%s: kept %v, skipped %v; want %v and %d dropped", tc.mode, ids, skipped, tc.wantIDs, tc.dropped)
		}
	}
}
