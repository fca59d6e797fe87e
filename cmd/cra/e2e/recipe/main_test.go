// Package recipe_test runs the README's recipe, every step a child
// process of the built cra binary, on a repository with the shape of a
// real one.
package recipe_test

import (
	"testing"

	"github.com/cra-dev/cra/internal/clitest"
)

// cli runs cra commands as the binary.
var cli *clitest.CLI

func TestMain(m *testing.M) { clitest.BinaryMain(m, &cli) }
