package bootstrap

import (
	"runtime/debug"
	"sync/atomic"
	"testing"

	"github.com/cra-dev/cra/ingest"
	"github.com/cra-dev/cra/internal/gittest"
)

// limitSeen is a progress reporter that records the Go heap limit in
// effect while commits are being built.
type limitSeen struct {
	ingest.Progress
	limit atomic.Int64
}

func (l *limitSeen) Add(n int64) { l.limit.Store(debug.SetMemoryLimit(-1)) }

// A run keeps the Go heap under its MemoryLimit while it builds, and
// gives the process its own limit back when it ends.
func TestRunKeepsTheHeapUnderItsMemoryLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	r := gittest.ShopWithMergedBranch(t).Repo
	seen := &limitSeen{Progress: ingest.NoProgress{}}
	opts := testOptions()
	opts.MemoryLimit, opts.Progress = 123<<20, seen
	if res := mine(t, newHome(t), opts, r.Dir).Repos[0]; res.Verified == 0 {
		t.Fatalf("nothing verified: %v", res.Outcomes)
	}
	if got := seen.limit.Load(); got != 123<<20 {
		t.Errorf("limit while building: %d, want %d", got, 123<<20)
	}
	if after := debug.SetMemoryLimit(-1); after != before {
		t.Errorf("limit after the run: %d, want the process's %d back", after, before)
	}
}
