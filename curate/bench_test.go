package curate

import (
	"context"
	"testing"

	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

func BenchmarkCurate(b *testing.B) {
	const tasks = 25000 // 100,000 targets
	home := storetest.Home(b)
	storetest.SyntheticTasks(b, home, tasks)
	opts := testOptions("bench")
	opts.Curate.PerRepoCap = 0
	opts.Jobs = 0
	var sum *Summary
	storetest.ResetPeakRSS()
	start := storetest.PeakRSS()
	b.ResetTimer()
	for range b.N {
		var err error
		if sum, err = Curate(context.Background(), home, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(storetest.PeakRSS())/(1<<20), "peak_MB")
	b.ReportMetric(float64(start)/(1<<20), "start_MB")
	kept := 0
	for _, s := range sum.Examples {
		kept += s[kb.SplitTrain] + s[kb.SplitValidation]
	}
	b.ReportMetric(float64(4*tasks)/(b.Elapsed().Seconds()/float64(b.N)), "targets/s")
	b.ReportMetric(float64(kept), "kept")
}

func BenchmarkMinHash(b *testing.B) {
	mh := newMinHasher(16, 8)
	text := distinctText(1) + " " + distinctText(2) + " " + distinctText(3) + " " + distinctText(4)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		mh.signature(text)
	}
}
