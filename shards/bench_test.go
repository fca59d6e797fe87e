package shards

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/cra-dev/cra/kb"
)

// benchRows sizes the generated shard: CRA_BENCH_TASKS tasks (default
// 100,000), four targets each (~300 bytes of JSON), three commits seen per
// task, a merge decision per hundred and ten repositories: 8.1 rows per
// task.
func benchTasks() int {
	if n, err := strconv.Atoi(os.Getenv("CRA_BENCH_TASKS")); err == nil && n > 0 {
		return n
	}
	return 100_000
}

// benchShard writes a home with generated bootstrap rows and exports it
// as shard 0 of 1 under dir.
func benchShard(b *testing.B, dir string, tasks int) int64 {
	b.Helper()
	ctx := context.Background()
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := kb.Init(ctx, home, "bench"); err != nil {
		b.Fatal(err)
	}
	err := kb.WithWriter(ctx, home, kb.Raw, kb.Options{}, func(w kb.Writer) error {
		for _, q := range []string{
			`INSERT INTO bootstrap_runs (started_at, finished_at, repos, failed, status, options) VALUES (now(), now(), 10, 0, 'ok', '{}')`,
			fmt.Sprintf(`INSERT INTO bootstrap_commits (run_id, repo_path, commit, parents, committed_at, files, insertions, deletions, outcome, detail)
				SELECT 1, '/clones/repo' || (i %% 10), md5(i::VARCHAR), [md5((i + 1)::VARCHAR)], now(), ['pkg/a.py', 'pkg/b.py'], 3, 1,
					CASE WHEN i %% 3 = 0 THEN 'verified' ELSE 'too_many_files' END, NULL
				FROM range(%d) t(i)`, 3*tasks),
			fmt.Sprintf(`INSERT INTO synthetic_tasks (id, run_id, repo_path, commit, parent, author, committed_at, message, task, files_changed, insertions, deletions, created_at)
				SELECT sha256(i::VARCHAR), 1, '/clones/repo' || (i %% 10), md5(i::VARCHAR), md5((i + 1)::VARCHAR), 'Ada Tester', now(),
					'Fix the parser when a value ' || i || ' is empty', 'Fix the parser when a value is empty', 2, 3, 1, now()
				FROM range(%d) t(i)`, tasks),
			fmt.Sprintf(`INSERT INTO synthetic_targets (id, task_id, repo_path, commit, stage, target, created_at)
				SELECT sha256(i::VARCHAR || s), sha256(i::VARCHAR), '/clones/repo' || (i %% 10), md5(i::VARCHAR), s,
					to_json({'files': ['pkg/a.py', 'pkg/b.py'], 'symbols': ['parse', 'render_' || i], 'note': repeat('x', 200)}), now()
				FROM range(%d) t(i), (VALUES ('scope'), ('precision'), ('plan'), ('implement')) v(s)`, tasks),
			fmt.Sprintf(`INSERT INTO bootstrap_merges (run_id, repo_path, commit, parts, outcome, examined_at)
				SELECT 1, '/clones/repo' || (i %% 10), md5(i::VARCHAR), 2, 'task', now() FROM range(%d) t(i)`, tasks/100),
			`INSERT INTO bootstrap_repos (repo_path, watermark, last_run_id, last_status, updated_at)
				SELECT '/clones/repo' || i, [md5(i::VARCHAR)], 1, 'ok', now() FROM range(10) t(i)`,
		} {
			if _, err := w.Conn.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	sum, err := Export(ctx, home, filepath.Join(dir, "shared"), Shard{K: 0, N: 1}, ExportOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var rows int64
	for _, n := range sum.Rows {
		rows += n
	}
	return rows
}

// BenchmarkImport: rows/s of `cra shards import` into a new home, and
// the ratio to DuckDB loading the same files with plain INSERTs (no
// anti-join, no run remapping, one transaction per table) into another
// new home in the same run (x-plain); again-rows/s is the same import
// run a second time, every row anti-joined against what is there.
func BenchmarkImport(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	rows := benchShard(b, dir, benchTasks())
	shared := filepath.Join(dir, "shared")
	ms, err := Committed(shared)
	if err != nil || len(ms) != 1 {
		b.Fatalf("%d manifests, %v", len(ms), err)
	}
	var importTime, againTime, plainTime time.Duration
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		home := filepath.Join(dir, fmt.Sprintf("import%d", i))
		plain := filepath.Join(dir, fmt.Sprintf("plain%d", i))
		for _, h := range []string{home, plain} {
			if err := os.MkdirAll(h, 0o755); err != nil {
				b.Fatal(err)
			}
			if err := kb.Init(ctx, h, "bench"); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		start := time.Now()
		chunk, _ := strconv.ParseInt(os.Getenv("CRA_BENCH_CHUNK"), 10, 64)
		var log *slog.Logger
		if os.Getenv("CRA_BENCH_LOG") != "" {
			log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
		}
		sum, err := Import(ctx, home, shared, ImportOptions{ChunkRows: chunk, Log: log})
		if err != nil {
			b.Fatal(err)
		}
		importTime += time.Since(start)
		b.StopTimer()
		if sum.Read != rows {
			b.Fatalf("imported %d rows of %d", sum.Read, rows)
		}
		// Again: every row anti-joined against the table, none added.
		start = time.Now()
		if _, err := Import(ctx, home, shared, ImportOptions{ChunkRows: chunk}); err != nil {
			b.Fatal(err)
		}
		againTime += time.Since(start)
		start = time.Now()
		err = kb.WithWriter(ctx, plain, kb.Raw, kb.Options{}, func(w kb.Writer) error {
			for _, t := range TableNames() {
				p, _ := ms[0].path(shared, t)
				if _, err := w.Conn.ExecContext(ctx, fmt.Sprintf("INSERT INTO %s BY NAME SELECT * FROM %s", t, readParquet(p))); err != nil {
					return err
				}
			}
			_, err := w.Conn.ExecContext(ctx, "CHECKPOINT")
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		plainTime += time.Since(start)
		os.RemoveAll(home)
		os.RemoveAll(plain)
		b.StartTimer()
	}
	n := float64(b.N)
	b.ReportMetric(float64(rows)/(importTime.Seconds()/n), "rows/s")
	b.ReportMetric(float64(rows)/(plainTime.Seconds()/n), "plain-rows/s")
	b.ReportMetric(float64(rows)/(againTime.Seconds()/n), "again-rows/s")
	b.ReportMetric(importTime.Seconds()/plainTime.Seconds(), "x-plain")
	b.ReportMetric(float64(rows), "rows")
}
