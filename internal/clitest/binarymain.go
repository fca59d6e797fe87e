package clitest

import (
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/cra-dev/cra/agent/eval/evaltest"
	"github.com/cra-dev/cra/internal/e2e"
)

// The exit codes the README documents.
const (
	ExitOK          = 0
	ExitFailures    = 1
	ExitUsage       = 2
	ExitInterrupted = 130
)

// BinaryMain is the TestMain of a package of end-to-end tests that run
// the built cra binary in child processes (cmd/cra/e2e and the packages
// under it): it sets *cli to run $CRA_E2E_BIN, building cra first unless
// the variable names one, runs the tests and exits. Started with
// ChildEnv (by Child, or storetest.KillAfter with ChildEnv),
// the test binary becomes cra itself (exec), so that the kill hits cra;
// started by e2e.Measure, it is the wrapper measuring a child's peak RSS.
func BinaryMain(m *testing.M, cli **CLI) {
	e2e.MeasureMain()
	if args, ok := ChildArgs(); ok {
		bin := os.Getenv("CRA_E2E_BIN")
		panic(syscall.Exec(bin, append([]string{bin}, args...), os.Environ()))
	}
	if os.Getenv("CRA_E2E_BIN") == "" {
		bin, err := BuildBinary()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Setenv("CRA_E2E_BIN", bin) //nolint:errcheck // for the children to kill
	}
	*cli = New(Exec(os.Getenv("CRA_E2E_BIN")))
	evaltest.UsePython()
	MoreParallel()
	code := m.Run()
	CleanupFixtures()
	RemoveBinary()
	os.Exit(code)
}
