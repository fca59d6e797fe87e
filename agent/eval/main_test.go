package eval_test

import (
	"os"
	"testing"

	"github.com/cra-dev/cra/agent/eval/evaltest"
)

// TestMain runs the fixtures' python3 without a version manager's shim.
func TestMain(m *testing.M) {
	evaltest.UsePython()
	os.Exit(m.Run())
}
