package kb_test

import (
	"context"
	"testing"

	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// The cost of a short write: the raw store opened, one row, closed.
func BenchmarkShortWrite(b *testing.B) {
	ctx := context.Background()
	home := storetest.Home(b)
	for range b.N {
		if err := kb.WithWriter(ctx, home, kb.Raw, kb.Options{Command: "bench"}, func(w kb.Writer) error {
			_, err := w.Conn.ExecContext(ctx, `INSERT INTO eval_commit_judgements VALUES ('r', 'c', 't', 'tests', 'fail_to_pass', [], [], [], 0, 0, 0, '', '', now())`)
			return err
		}); err != nil {
			b.Fatal(err)
		}
	}
}

// The cost of a new home: kb.Init making both stores, every migration
// applied.
func BenchmarkInit(b *testing.B) {
	for range b.N {
		if err := kb.Init(context.Background(), b.TempDir(), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

// The cost of a short read: the raw store opened read-only, one query,
// closed (what `cra status` pays per store).
func BenchmarkShortRead(b *testing.B) {
	ctx := context.Background()
	home := storetest.Home(b)
	for range b.N {
		s, err := kb.Open(ctx, home, kb.Raw, kb.Options{Command: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		var n int
		if err := s.DB.QueryRowContext(ctx, `SELECT count(*) FROM eval_commit_judgements`).Scan(&n); err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
