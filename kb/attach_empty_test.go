package kb

import (
	"context"
	"testing"
)

// An empty session has every table of both stores, resolved as Attach
// resolves them, and the version this binary writes.
func TestAttachEmptyHoldsTheSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, err := AttachEmpty(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for _, k := range Kinds {
		v, err := schemaVersion(ctx, a.Conn, string(k))
		if err != nil || v != LatestVersion(k) {
			t.Errorf("%s at version %d (%v), want %d", k, v, err, LatestVersion(k))
		}
	}
	var n int
	for _, q := range []string{"SELECT count(*) FROM synthetic_tasks", "SELECT count(*) FROM bootstrap_funnel",
		"SELECT count(*) FROM files", "SELECT count(*) FROM raw.task_runs"} {
		if err := a.Conn.QueryRowContext(ctx, q).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s: %d, %v", q, n, err)
		}
	}
}
