// Package e2e_test holds cra's end-to-end tests of evals (cra eval and
// cra ask --eval), each command run as the built cra binary
// (clitest.Binary) in a child process, as a user runs it. The adapter
// gates (adapters/) and the README's recipe (recipe/) are packages of
// their own: each package is one test binary, and go test runs two at a
// time, so that these, cmd/cra's tests and the rest share the cores
// rather than queue behind one long package.
package e2e_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/cra-dev/cra/internal/clitest"
)

// cli runs cra commands as the binary.
var cli *clitest.CLI

func TestMain(m *testing.M) { clitest.BinaryMain(m, &cli) }

// craProcesses runs each argument list as its own cra process, all at
// once, and returns their results in order.
func craProcesses(t *testing.T, runs ...[]string) []clitest.Result {
	t.Helper()
	return clitest.Processes(t, func(args []string) *exec.Cmd {
		return exec.Command(os.Getenv("CRA_E2E_BIN"), args...)
	}, runs...)
}
