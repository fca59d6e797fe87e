package shards

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/cra-dev/cra/internal/version"
	"github.com/cra-dev/cra/kb"
)

// testHook, when a test sets it, is called at named points of an export
// (after a table's file is renamed into place: "placed").
var testHook func(point string)

func hook(point string) {
	if testHook != nil {
		testHook(point)
	}
}

// ExportOptions configure an export.
type ExportOptions struct {
	Log *slog.Logger
}

// ExportSummary is what an export wrote.
type ExportSummary struct {
	Shard      string           `json:"shard"`
	Dir        string           `json:"dir"`
	HomeID     string           `json:"home_id"`
	Generation string           `json:"generation"`
	Rows       map[string]int64 `json:"rows"` // table → rows
	Bytes      int64            `json:"bytes"`
	Removed    int              `json:"removed"` // files of earlier generations and killed exports removed
	Seconds    float64          `json:"seconds"`
}

// Export writes the bootstrap tables of the home's raw store as shard s
// under dir: DIR/<table>/shard=K/<generation>.parquet (DuckDB's COPY,
// zstd), all read in one transaction so the tables agree with each other.
// The files are written into DIR/_tmp/shard=K/<generation>/, renamed
// into place, and committed by renaming the shard's manifest
// (DIR/_shards/shard=K.json) over the old one; then the earlier
// generation's files and whatever a killed export of this shard left are
// removed.
func Export(ctx context.Context, home, dir string, s Shard, opts ExportOptions) (*ExportSummary, error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	start := time.Now()
	if err := kb.CheckInitialized(home); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--out %s: %w", dir, err)
	}
	gen := generation(start)
	sum := &ExportSummary{Shard: s.String(), Dir: dir, Generation: gen, Rows: map[string]int64{}}
	old, err := readManifest(dir, s.K)
	if err != nil {
		return nil, err
	}
	// What a killed export of this shard left: its temporary folder, and
	// files renamed into place that no manifest names.
	removed, err := removeUnnamed(dir, s.K, old)
	if err != nil {
		return nil, err
	}
	work := filepath.Join(dir, tmpDir, fmt.Sprintf("shard=%d", s.K), gen)
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	m := &Manifest{Format: ManifestFormat, Shard: s.K, Count: s.N, Generation: gen,
		ExportedAt: start.UTC().Format(time.RFC3339Nano), CraVersion: version.String(),
		SchemaVersion: kb.LatestVersion(kb.Raw), Tables: map[string]TableFile{}}
	err = kb.WithWriter(ctx, home, kb.Raw, kb.Options{Command: "cra shards export", Wait: kb.BatchWait},
		func(w kb.Writer) error {
			return w.Tx(ctx, func() error {
				id, err := homeID(ctx, w.Conn)
				if err != nil {
					return err
				}
				m.HomeID = id
				for _, t := range TableNames() {
					n, err := copyOut(ctx, w.Conn, t, filepath.Join(work, t+".parquet"))
					if err != nil {
						return err
					}
					m.Tables[t] = TableFile{File: path.Join(t, fmt.Sprintf("shard=%d", s.K), gen+".parquet"), Rows: n}
					sum.Rows[t] = n
				}
				return nil
			})
		})
	if err != nil {
		os.RemoveAll(work)
		return nil, err
	}
	sum.HomeID = m.HomeID
	for _, t := range TableNames() {
		from := filepath.Join(work, t+".parquet")
		if err := syncFile(from); err != nil {
			return nil, err
		}
		to, _ := m.path(dir, t)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return nil, err
		}
		if err := os.Rename(from, to); err != nil {
			return nil, err
		}
		if st, err := os.Stat(to); err == nil {
			sum.Bytes += st.Size()
		}
		hook("placed")
	}
	for _, t := range TableNames() {
		to, _ := m.path(dir, t)
		if err := syncDir(filepath.Dir(to)); err != nil {
			return nil, err
		}
	}
	if err := writeManifest(dir, m); err != nil {
		return nil, fmt.Errorf("commit shard %d: %w", s.K, err)
	}
	n, err := removeUnnamed(dir, s.K, m)
	sum.Removed = removed + n
	sum.Seconds = time.Since(start).Seconds()
	opts.Log.Info("shard exported", "shard", s.String(), "dir", dir, "generation", gen, "rows", sum.Rows, "bytes", sum.Bytes)
	return sum, err
}

// generation names an export: sortable by time, unique across pods.
func generation(t time.Time) string {
	b := make([]byte, 4)
	rand.Read(b) //nolint:errcheck // never fails (crypto/rand)
	return t.UTC().Format("20060102T150405.000000Z") + "-" + hex.EncodeToString(b)
}

// homeID is this home's identity, made at its first export.
func homeID(ctx context.Context, conn *sql.Conn) (string, error) {
	id, err := HomeID(ctx, conn)
	if err != nil || id != "" {
		return id, err
	}
	b := make([]byte, 16)
	rand.Read(b) //nolint:errcheck // never fails (crypto/rand)
	id = hex.EncodeToString(b)
	_, err = conn.ExecContext(ctx, "INSERT INTO shard_home (home_id, created_at) VALUES (?, ?)", id, time.Now().UTC())
	return id, err
}

// HomeID is the identity of the home's raw store ("" before its first
// export).
func HomeID(ctx context.Context, conn *sql.Conn) (string, error) {
	var id string
	err := conn.QueryRowContext(ctx, "SELECT home_id FROM shard_home LIMIT 1").Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// copyOut writes the whole of table to file as Parquet; it returns the rows.
func copyOut(ctx context.Context, conn *sql.Conn, table, file string) (int64, error) {
	res, err := conn.ExecContext(ctx, fmt.Sprintf("COPY %s TO %s (FORMAT parquet, COMPRESSION zstd)", table, quote(file)))
	if err != nil {
		return 0, fmt.Errorf("export %s: %w", table, err)
	}
	return res.RowsAffected()
}

// removeUnnamed removes the files of shard k that m does not name (all of
// them when m is nil) and the shard's temporary folder.
func removeUnnamed(dir string, k int, m *Manifest) (int, error) {
	keep := map[string]bool{}
	if m != nil {
		for _, t := range TableNames() {
			if p, ok := m.path(dir, t); ok {
				keep[filepath.Clean(p)] = true
			}
		}
	}
	n := 0
	for _, t := range TableNames() {
		entries, err := os.ReadDir(tableDir(dir, t, k))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return n, err
		}
		for _, e := range entries {
			p := filepath.Join(tableDir(dir, t, k), e.Name())
			if keep[p] || e.IsDir() {
				continue
			}
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return n, err
			}
			n++
		}
	}
	tmp := filepath.Join(dir, tmpDir, fmt.Sprintf("shard=%d", k))
	if m != nil {
		// Other exports' folders under way are not this one's to judge;
		// only this shard's, whose exporter is this process.
		entries, _ := os.ReadDir(tmp)
		for _, e := range entries {
			if e.Name() != m.Generation {
				n++
			}
		}
	}
	if err := os.RemoveAll(tmp); err != nil {
		return n, err
	}
	// Manifests half written by a killed export.
	mdir := filepath.Join(dir, manifestsDir)
	entries, _ := os.ReadDir(mdir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), fmt.Sprintf("shard=%d.json.tmp-", k)) {
			os.Remove(filepath.Join(mdir, e.Name())) //nolint:errcheck // removed or gone
		}
	}
	return n, nil
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
