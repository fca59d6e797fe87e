package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/cra-dev/cra/agent/eval"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/internal/usage"
)

// A usage error from any package exits 2 however it is wrapped; the
// structured ones (a preflight's problem, an eval selection that does
// not match) need no conversion in the command.
func TestExitCodeOfUsageErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		err  error
		want int
	}{
		"usage.Errorf":                  {usage.Errorf("--stages x: unknown"), exitUsage},
		"wrapped by a package":          {fmt.Errorf("curate: %w", usage.Errorf("no example")), exitUsage},
		"joined with a close error":     {errors.Join(usage.Errorf("bad"), io.ErrClosedPipe), exitUsage},
		"preflight":                     {&retrieval.PreflightError{Problem: "no index", Fix: "run cra index"}, exitUsage},
		"eval selection":                {fmt.Errorf("eval: %w", &eval.SelectionError{Name: "n", Was: "a", Now: "b"}), exitUsage},
		"anything else":                 {io.ErrUnexpectedEOF, exitFailures},
		"interrupted beats usage":       {fmt.Errorf("%w: %w", context.Canceled, usage.Errorf("x")), exitInterrupted},
		"some inputs failed beats none": {&partialError{failed: 1, total: 2}, exitFailures},
	} {
		if got := exitCode(context.Background(), tc.err); got != tc.want {
			t.Errorf("%s: exit %d, want %d", name, got, tc.want)
		}
	}
}
