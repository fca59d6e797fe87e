package datasets

import (
	"context"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cra-dev/cra/kb"
)

// BenchmarkExportParquet exports 1,000,000 rows (two stages, both splits;
// a system, user and assistant turn each) and reports rows/s and the peak
// Go heap, sampled while it runs.
func BenchmarkExportParquet(b *testing.B) {
	const rows = 1_000_000
	raw, _ := fixtureStore(b, rows)
	var peak atomic.Uint64
	stop := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak.Load() {
					peak.Store(ms.HeapInuse)
				}
			}
		}
	}()
	b.ResetTimer()
	for range b.N {
		if _, err := Export(context.Background(), raw.DB, kb.DatasetRef{Name: "d"}, ExportOptions{Out: filepath.Join(b.TempDir(), "out")}); err != nil {
			b.Fatal(err)
		}
	}
	close(stop)
	b.ReportMetric(rows/(b.Elapsed().Seconds()/float64(b.N)), "rows/s")
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak_heap_MB")
}
