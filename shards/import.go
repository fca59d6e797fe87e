package shards

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/cra-dev/cra/kb"
)

// chunkRows bounds a transaction of an import: rows of one file, by
// their row number in it. A file that small loads whole, with no filter
// on the row number (which costs DuckDB its parallel, optimistic write:
// the import took about twice as long as a plain INSERT with it).
const chunkRows = 1_000_000

// ImportOptions configure an import.
type ImportOptions struct {
	Log *slog.Logger
	// ChunkRows overrides chunkRows (tests: many small transactions).
	ChunkRows int64
}

// ImportSummary is what an import added.
type ImportSummary struct {
	Dir     string           `json:"dir"`
	Shards  []ShardImport    `json:"shards"`
	Added   map[string]int64 `json:"added"` // table → rows added (bootstrap_repos: rows added or replaced by newer ones)
	Read    int64            `json:"read"`  // rows the manifests name
	Seconds float64          `json:"seconds"`
	// Counts are the shard counts the manifests were exported with: more
	// than one while a change of N is under way (a repository then sits
	// in two shards until the old one is exported again or removed).
	Counts []int `json:"counts"`
}

// ShardImport is one shard's part of an import.
type ShardImport struct {
	Shard      int    `json:"shard"`
	Count      int    `json:"count"`
	HomeID     string `json:"home_id"`
	Generation string `json:"generation"`
	NewRuns    int    `json:"new_runs"`
}

// Import loads every committed shard of dir into the home's raw store.
// Each shard's runs become runs of this home (raw.shard_runs maps them,
// so a run is imported once), then its tables are appended in bounded
// transactions, anti-joined on their keys, run ids remapped; a
// repository's row (its watermark) is replaced only by a newer one. A
// kill at any point leaves whole transactions; running it again adds
// what is missing and nothing twice.
func Import(ctx context.Context, home, dir string, opts ImportOptions) (*ImportSummary, error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.ChunkRows <= 0 {
		opts.ChunkRows = chunkRows
	}
	start := time.Now()
	ms, err := Committed(dir)
	if err != nil {
		return nil, err
	}
	sum := &ImportSummary{Dir: dir, Added: map[string]int64{}}
	if len(ms) == 0 {
		opts.Log.Warn("no committed shard to import", "dir", dir)
		return sum, nil
	}
	counts := map[int]bool{}
	for _, m := range ms {
		if m.SchemaVersion > kb.LatestVersion(kb.Raw) {
			return nil, fmt.Errorf("shard %d of %s was exported by cra %s (raw schema %d, this cra knows %d): upgrade cra to import it",
				m.Shard, dir, m.CraVersion, m.SchemaVersion, kb.LatestVersion(kb.Raw))
		}
		if !counts[m.Count] {
			counts[m.Count] = true
			sum.Counts = append(sum.Counts, m.Count)
		}
	}
	err = kb.WithWriter(ctx, home, kb.Raw, kb.Options{Command: "cra shards import", Wait: kb.BatchWait},
		func(w kb.Writer) error {
			own, err := HomeID(ctx, w.Conn)
			if err != nil {
				return err
			}
			for _, m := range ms {
				si, err := importShard(ctx, w, dir, m, own, opts, sum)
				if err != nil {
					return fmt.Errorf("import shard %d of %s: %w", m.Shard, dir, err)
				}
				sum.Shards = append(sum.Shards, si)
			}
			_, err = w.Conn.ExecContext(ctx, "CHECKPOINT")
			return err
		})
	sum.Seconds = time.Since(start).Seconds()
	if err != nil {
		return sum, err
	}
	opts.Log.Info("shards imported", "dir", dir, "shards", len(ms), "added", sum.Added, "seconds", sum.Seconds)
	return sum, nil
}

func importShard(ctx context.Context, w kb.Writer, dir string, m *Manifest, own string, opts ImportOptions, sum *ImportSummary) (ShardImport, error) {
	si := ShardImport{Shard: m.Shard, Count: m.Count, HomeID: m.HomeID, Generation: m.Generation}
	runs, ok := m.path(dir, runsTable)
	if !ok {
		return si, fmt.Errorf("its manifest names no %s file: export it again", runsTable)
	}
	sum.Read += m.Tables[runsTable].Rows
	err := w.Tx(ctx, func() (err error) {
		si.NewRuns, err = mapRuns(ctx, w.Conn, runs, m, own)
		return err
	})
	if err != nil {
		return si, err
	}
	for _, t := range tables {
		file, ok := m.path(dir, t.name)
		if !ok {
			continue // exported by a cra that had no such table
		}
		rows := m.Tables[t.name].Rows
		sum.Read += rows
		// Into an empty table the anti-join can go: a shard's file holds
		// each key once (its home anti-joined on load), so the only rows
		// its later chunks could meet are its earlier chunks', other keys.
		// A re-run after a kill finds the table not empty.
		start := time.Now()
		empty, err := isEmpty(ctx, w.Conn, t.name)
		if err != nil {
			return si, err
		}
		for lo := int64(0); lo < max(rows, 1); lo += opts.ChunkRows {
			var n int64
			err := w.Tx(ctx, func() (err error) {
				hi := lo + opts.ChunkRows
				if lo == 0 && hi >= rows {
					hi = -1 // the whole file
				}
				n, err = loadChunk(ctx, w.Conn, t, file, m.HomeID, lo, hi, empty)
				return err
			})
			if err != nil {
				return si, fmt.Errorf("%s: %w", t.name, err)
			}
			sum.Added[t.name] += n
			hook("chunk")
		}
		opts.Log.Debug("imported", "shard", m.Shard, "table", t.name, "rows", rows, "anti_join", !empty, "elapsed", time.Since(start))
	}
	return si, nil
}

// mapRuns gives each run of the shard's home not seen before a run id of
// this home (in the order of their ids there) and copies its row; a run
// seen before whose copy here is unfinished takes the shard's finish. The
// runs of this very home (it exported a shard and imports the union) keep
// their ids.
func mapRuns(ctx context.Context, conn *sql.Conn, file string, m *Manifest, own string) (int, error) {
	src := readParquet(file)
	ids, err := kb.Column[int64](ctx, conn, fmt.Sprintf(`SELECT r.id FROM %s r
		WHERE NOT EXISTS (SELECT 1 FROM shard_runs s WHERE s.home_id = $1 AND s.source_run_id = r.id)
		ORDER BY r.id`, src), m.HomeID)
	if err != nil {
		return 0, err
	}
	now := time.Now().UTC()
	newRuns := 0
	for _, id := range ids {
		target := "nextval('bootstrap_runs_id_seq')"
		if m.HomeID == own {
			target = "$2"
		} else {
			newRuns++
		}
		if _, err := conn.ExecContext(ctx, `INSERT INTO shard_runs (home_id, source_run_id, run_id, shard, shard_count, imported_at)
			VALUES ($1, $2, `+target+`, $3, $4, $5)`, m.HomeID, id, m.Shard, m.Count, now); err != nil {
			return 0, err
		}
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`INSERT INTO bootstrap_runs BY NAME
		SELECT r.* REPLACE (s.run_id AS id) FROM %s r
		JOIN shard_runs s ON s.home_id = $1 AND s.source_run_id = r.id
		WHERE NOT EXISTS (SELECT 1 FROM bootstrap_runs b WHERE b.id = s.run_id)`, src), m.HomeID); err != nil {
		return 0, err
	}
	_, err = conn.ExecContext(ctx, fmt.Sprintf(`UPDATE bootstrap_runs SET finished_at = u.finished_at, failed = u.failed, status = u.status
		FROM (SELECT s.run_id, r.finished_at, r.failed, r.status FROM %s r
			JOIN shard_runs s ON s.home_id = $1 AND s.source_run_id = r.id WHERE r.finished_at IS NOT NULL) u
		WHERE bootstrap_runs.id = u.run_id AND bootstrap_runs.finished_at IS NULL`, src), m.HomeID)
	return newRuns, err
}

// loadChunk appends the rows lo to hi of file (hi < 0: all of them) not
// in t yet, their run id remapped, and returns how many it added (for a
// table whose newest row wins: added or replaced).
func loadChunk(ctx context.Context, conn *sql.Conn, t table, file, home string, lo, hi int64, empty bool) (int64, error) {
	whole := hi < 0
	q := fmt.Sprintf(`INSERT INTO %s BY NAME SELECT p.*`, t.name)
	if !whole {
		q += " EXCLUDE (file_row_number)"
	}
	var args []any
	if t.runCol != "" {
		q += fmt.Sprintf(" REPLACE (s.run_id AS %s)", t.runCol)
	}
	if whole {
		q += " FROM " + readParquet(file) + " p"
	} else {
		q += fmt.Sprintf(` FROM read_parquet(%s, hive_partitioning = false, file_row_number = true) p`, quote(file))
	}
	if t.runCol != "" {
		q += fmt.Sprintf(" JOIN shard_runs s ON s.home_id = $1 AND s.source_run_id = p.%s", t.runCol)
		args = append(args, home)
	}
	if whole {
		q += " WHERE true"
	} else {
		q += fmt.Sprintf(" WHERE p.file_row_number >= %d AND p.file_row_number < %d", lo, hi)
	}
	if t.newest {
		var set []string
		for _, c := range []string{"watermark", "last_run_id", "last_status", "last_error", "updated_at"} {
			set = append(set, fmt.Sprintf("%s = excluded.%s", c, c))
		}
		q += fmt.Sprintf(" ON CONFLICT (%s) DO UPDATE SET %s WHERE excluded.updated_at > %s.updated_at",
			strings.Join(t.key, ", "), strings.Join(set, ", "), t.name)
	} else if !empty {
		var on []string
		for _, k := range t.key {
			on = append(on, fmt.Sprintf("d.%s = p.%s", k, k))
		}
		q += fmt.Sprintf(" AND NOT EXISTS (SELECT 1 FROM %s d WHERE %s)", t.name, strings.Join(on, " AND "))
	}
	res, err := conn.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func isEmpty(ctx context.Context, conn *sql.Conn, table string) (bool, error) {
	var any bool
	err := conn.QueryRowContext(ctx, fmt.Sprintf("SELECT EXISTS (SELECT 1 FROM %s)", table)).Scan(&any)
	return !any, err
}

func readParquet(file string) string {
	return fmt.Sprintf("read_parquet(%s, hive_partitioning = false)", quote(file))
}
