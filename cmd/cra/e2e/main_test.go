// Package e2e_test holds cra's longest end-to-end tests: evals, adapter
// gates and the README's recipe, each command run as the built cra binary
// (clitest.Binary) in a child process, as a user runs it. They are their
// own package so that cmd/cra's tests and these run side by side.
package e2e_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/cra-dev/cra/agent/eval/evaltest"
	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/e2e"
)

// The exit codes the README documents.
const (
	exitOK          = 0
	exitFailures    = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// cli runs cra commands as the binary.
var cli *clitest.CLI

// TestMain builds cra unless $CRA_E2E_BIN names one. Started with
// CRA_TEST_CLI_ARGS (a JSON list of arguments) by storetest.KillAfter,
// this test binary becomes cra itself (exec), so that the kill hits cra;
// started by e2e.Measure, it is the wrapper measuring a child's peak RSS.
func TestMain(m *testing.M) {
	e2e.MeasureMain()
	if args := os.Getenv("CRA_TEST_CLI_ARGS"); args != "" {
		var a []string
		if err := json.Unmarshal([]byte(args), &a); err != nil {
			panic(err)
		}
		bin := os.Getenv("CRA_E2E_BIN")
		panic(syscall.Exec(bin, append([]string{bin}, a...), os.Environ()))
	}
	if os.Getenv("CRA_E2E_BIN") == "" {
		bin, err := clitest.BuildBinary()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Setenv("CRA_E2E_BIN", bin) //nolint:errcheck // for the children to kill
	}
	cli = clitest.New(clitest.Exec(os.Getenv("CRA_E2E_BIN")))
	evaltest.UsePython()
	clitest.MoreParallel()
	code := m.Run()
	clitest.CleanupFixtures()
	clitest.RemoveBinary()
	os.Exit(code)
}

// craProcesses runs each argument list as its own cra process, all at
// once, and returns their results in order.
func craProcesses(t *testing.T, runs ...[]string) []clitest.Result {
	t.Helper()
	return clitest.Processes(t, func(args []string) *exec.Cmd {
		return exec.Command(os.Getenv("CRA_E2E_BIN"), args...)
	}, runs...)
}
