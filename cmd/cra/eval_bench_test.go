package main

import (
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/eval/evaltest"
)

// BenchmarkEvalWithAHangingTest evals 20 tasks of a Go module twice, with
// the default test timeouts: once where every task's tests end, once where
// one task's tests hang at its parent (evaltest.GoOptions.Hang). It
// reports both times and their ratio (issue 24's target: at most 2).
//
//	go test ./cmd/cra -run '^$' -bench EvalWithAHangingTest -benchtime 1x
func BenchmarkEvalWithAHangingTest(b *testing.B) {
	timed := func(o evaltest.GoOptions) time.Duration {
		srv, home := goEvalHome(b, o, "")
		oracleFor(b, srv, home, nil)
		start := time.Now()
		mustRun(b, home, "eval", "--name", "bench")
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
