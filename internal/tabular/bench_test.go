package tabular

import (
	"context"
	"database/sql"
	"io"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkCSV writes 200k rows of mixed columns as CSV and, in the same
// process and iteration, has DuckDB's own COPY write the same result: the
// reported x_vs_copy is our time over DuckDB's (the baseline).
func BenchmarkCSV(b *testing.B) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	const rows = 200_000
	if _, err := conn.ExecContext(ctx, `CREATE TABLE t AS SELECT i AS id, 'file_' || i || '.py' AS path,
		[i, i + 1] AS lines, TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_seconds(i) AS ts, i % 3 = 0 AS ok
		FROM range(200000) r(i)`); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(b.TempDir(), "copy.csv")
	var ours, theirs time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		r, err := conn.QueryContext(ctx, "FROM t")
		if err != nil {
			b.Fatal(err)
		}
		if n, err := Write(io.Discard, "csv", r); err != nil || n != rows {
			b.Fatalf("wrote %d rows: %v", n, err)
		}
		r.Close()
		ours += time.Since(start)
		start = time.Now()
		if _, err := conn.ExecContext(ctx, "COPY t TO '"+out+"' (FORMAT csv)"); err != nil {
			b.Fatal(err)
		}
		theirs += time.Since(start)
	}
	b.ReportMetric(float64(rows)*float64(b.N)/ours.Seconds(), "rows/s")
	b.ReportMetric(ours.Seconds()/theirs.Seconds(), "x_vs_copy")
}
