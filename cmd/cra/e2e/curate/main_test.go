// Package curate_test holds cra's tests of cra curate-data, cra distill
// and cra datasets (synthetic and logged sources, the splits, kills while
// writing, two processes on one dataset, the teacher's key), each command
// run as the built cra binary in a child process.
package curate_test

import (
	"os"
	"testing"

	"github.com/cra-dev/cra/internal/clitest"
)

// cli runs cra commands as the binary.
var cli *clitest.CLI

func TestMain(m *testing.M) {
	// The fake teacher's key, as a user exports it: set once for the
	// whole package, so the distill tests (which read it) run in parallel
	// rather than each setting it with t.Setenv.
	if err := os.Setenv(distillKeyEnv, distillKey); err != nil {
		panic(err)
	}
	clitest.BinaryMain(m, &cli)
}
