package ask_test

import (
	"testing"

	"github.com/cra-dev/cra/agent/ask"
)

func TestIsBugFix(t *testing.T) {
	for msg, want := range map[string]bool{
		"Fix crash when the name is empty": true, "fixes #12": true, "Handle errors in parse": true,
		"Don't fail on empty input": true, "Regression in 8.1": true, "Wrong exit code": true, "hotfix: quote paths": true,
		"Add a verbose flag": false, "Prefix the name": false, "Refactor the failsafe": false, "Document the debugger": false,
		"Add type annotations for instance attributes in `exceptions`": false,
	} {
		if ask.IsBugFix(msg) != want {
			t.Errorf("IsBugFix(%q) = %v, want %v", msg, !want, want)
		}
	}
}
