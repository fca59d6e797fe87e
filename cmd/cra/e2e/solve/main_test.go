// Package solve_test holds cra's tests of cra solve and cra plan (the
// preflight, the box, retries and adjustments, answers too large or
// malformed, kills and resumes, two runs in one home), each command run as
// the built cra binary in a child process.
package solve_test

import (
	"testing"

	"github.com/cra-dev/cra/internal/clitest"
)

// cli runs cra commands as the binary.
var cli *clitest.CLI

func TestMain(m *testing.M) { clitest.BinaryMain(m, &cli) }
