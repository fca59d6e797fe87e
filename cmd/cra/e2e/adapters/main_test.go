// Package adapters_test holds the end-to-end tests of the adapter gates
// (cra adapters eval, promote) and of train-plan reading their
// verdicts, each command run as the built cra binary in a child process.
package adapters_test

import (
	"testing"

	"github.com/cra-dev/cra/internal/clitest"
)

// cli runs cra commands as the binary.
var cli *clitest.CLI

func TestMain(m *testing.M) { clitest.BinaryMain(m, &cli) }
