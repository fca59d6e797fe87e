package e2e_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/eval/evaltest"
	"github.com/cra-dev/cra/agent/orchestrator"
	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/internal/storetest"
)

// BenchmarkEvalWithAHangingTest evals 20 tasks of a Go module twice, with
// the default test timeouts: once where every task's tests end, once where
// one task's tests hang at its parent (evaltest.GoOptions.Hang). It
// reports both times and their ratio (issue 24's target: at most 2).
//
//	go test ./cmd/cra/e2e -run '^$' -bench EvalWithAHangingTest -benchtime 1x
func BenchmarkEvalWithAHangingTest(b *testing.B) {
	timed := func(o evaltest.GoOptions) time.Duration {
		srv, home := goEvalHome(b, o, "")
		clitest.OracleFor(b, srv, home, nil)
		start := time.Now()
		cli.MustRun(b, home, "eval", "--name", "bench")
		return time.Since(start)
	}
	for range b.N {
		without := timed(evaltest.GoOptions{Ops: 20})
		with := timed(evaltest.GoOptions{Ops: 19, Hang: true})
		b.ReportMetric(without.Seconds(), "s-without-hang")
		b.ReportMetric(with.Seconds(), "s-with-hang")
		b.ReportMetric(with.Seconds()/without.Seconds(), "ratio")
	}
}

// goEvalHome is a home that mined a GoHistory of o, every task held out,
// with go test as its test command and testing's extra keys, and the
// fake model it calls.
func goEvalHome(t testing.TB, o evaltest.GoOptions, testing string) (srv *fakellm.Server, home string) {
	srv, home = heldOutHome(t, evaltest.GoHistory(t, o).Dir, evaltest.GoTestCommand, 120, testing)
	warmBoxCache.Copy(t, home)
	return srv, home
}

// warmBoxCache is a home's sandbox cache (orchestrator.BoxCache) after one
// confined go test of a package like GoHistory's, made once per test
// binary. A new home's first confined go test builds the standard library
// into its empty cache (cra's one-time warm-up: half a minute of CPU);
// these tests are about judging evals, not that warm-up (box_test.go
// covers the box's cache), so each home starts warm. Where bubblewrap
// cannot run, the runs use the user's cache and this is empty.
var warmBoxCache = storetest.NewTemplate(func(home string) error {
	wt, err := os.MkdirTemp("", "cra-warm-box-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(wt)
	for name, text := range map[string]string{
		"go.mod":       "module example.com/calc\n\ngo 1.22\n",
		"calc.go":      "package calc\n\nimport \"time\"\n\n// Wait waits.\nfunc Wait() { time.Sleep(0) }\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestWait(t *testing.T) { Wait() }\n",
	} {
		if err := os.WriteFile(filepath.Join(wt, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	box, err := orchestrator.NewBox(config.Default().Testing, os.Environ(), home)
	if err != nil {
		return err
	}
	if r := orchestrator.RunShell(context.Background(), box, wt, orchestrator.KindTest, evaltest.GoTestCommand, 10*time.Minute); !r.Passed {
		return fmt.Errorf("go test in the box: %s", r.Output)
	}
	return nil
})
