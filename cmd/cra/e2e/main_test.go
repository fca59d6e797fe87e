// Package e2e_test holds cra's end-to-end tests of evals (cra eval and
// cra ask --eval), each command run as the built cra binary
// (clitest.Binary) in a child process, as a user runs it. The adapter
// gates (adapters/), the README's recipe (recipe/), cra solve and cra
// plan (solve/), and curate-data, distill and datasets (curate/) are
// packages of their own: each package is one test binary, and go test
// runs two at a time, so that these, cmd/cra's tests and the rest share
// the cores rather than queue behind one long package.
package e2e_test

import (
	"testing"

	"github.com/cra-dev/cra/internal/clitest"
)

// cli runs cra commands as the binary.
var cli *clitest.CLI

func TestMain(m *testing.M) { clitest.BinaryMain(m, &cli) }
