package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// CompactResult is what Compact did to one store.
type CompactResult struct {
	Store       string         `json:"store"`
	BytesBefore int64          `json:"bytes_before"`
	BytesAfter  int64          `json:"bytes_after"`
	Tables      map[string]int `json:"tables"` // table → rows, equal before and after
}

// Compact rewrites the store of kind in home dir into a new file holding the
// same rows, without the free blocks deletes and replaced datasets leave
// behind: under the store's write lock it copies every table, view and
// sequence into "<store>.compact", checks the row count of every table,
// syncs the new file and renames it over the store. It refuses (a
// *LockedError) while another process has the store open, reader or writer.
// A kill at any moment leaves the old store whole; a leftover
// "<store>.compact" is removed by the next Compact.
func Compact(ctx context.Context, dir string, kind Kind, command string) (*CompactResult, error) {
	path := kind.Path(dir)
	if _, err := os.Stat(path); err != nil {
		return nil, &NotInitializedError{Path: path}
	}
	lock, err := acquireWriteLock(path, command)
	if err != nil {
		return nil, err
	}
	defer lock.release()
	res := &CompactResult{Store: kind.File(), BytesBefore: fileSize(path) + fileSize(path+".wal"), Tables: map[string]int{}}
	tmp := path + ".compact"
	for _, p := range []string{tmp, tmp + ".wal"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	if err := copyStore(ctx, path, tmp, kind, res); err != nil {
		os.Remove(tmp)
		return nil, err
	}
	if _, err := os.Stat(path + ".wal"); err == nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("compact %s: the store still has a write-ahead log after its checkpoint: left as it was", kind.File())
	}
	if err := syncFile(tmp); err != nil {
		os.Remove(tmp)
		return nil, err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return nil, err
	}
	if err := syncFile(filepath.Dir(path)); err != nil {
		return nil, err
	}
	res.BytesAfter = fileSize(path)
	return res, nil
}

// copyStore copies the store at path into a new database file at tmp and
// counts every table's rows on both sides.
func copyStore(ctx context.Context, path, tmp string, kind Kind, res *CompactResult) error {
	db, err := openMigrated(ctx, path, kind)
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	src := string(kind) // a file opened alone is the catalog named after its stem
	steps := []string{
		"CHECKPOINT",
		fmt.Sprintf("ATTACH %s AS compacted (STORAGE_VERSION '%s')", quoteLiteral(tmp), StorageVersion),
		fmt.Sprintf("COPY FROM DATABASE %s TO compacted", src),
	}
	for _, q := range steps {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("compact %s: %s: %w", kind.File(), q, err)
		}
	}
	tables, err := tableNames(ctx, conn, src)
	if err != nil {
		return err
	}
	for _, t := range tables {
		var before, after int
		if err := conn.QueryRowContext(ctx, fmt.Sprintf(`SELECT (SELECT count(*) FROM %s.main.%q), (SELECT count(*) FROM compacted.main.%q)`, src, t, t)).Scan(&before, &after); err != nil {
			return fmt.Errorf("compact %s: count %s: %w", kind.File(), t, err)
		}
		if before != after {
			return fmt.Errorf("compact %s: %s has %d rows in the copy, %d in the store: the store is left as it was", kind.File(), t, after, before)
		}
		res.Tables[t] = before
	}
	if _, err := conn.ExecContext(ctx, "CHECKPOINT compacted"); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, "DETACH compacted"); err != nil {
		return err
	}
	if _, err := os.Stat(tmp + ".wal"); err == nil {
		return fmt.Errorf("compact %s: the copy still has a write-ahead log after its checkpoint", kind.File())
	}
	return nil
}

func tableNames(ctx context.Context, conn *sql.Conn, catalog string) ([]string, error) {
	rows, err := conn.QueryContext(ctx, `SELECT table_name FROM duckdb_tables()
		WHERE database_name = ? AND schema_name = 'main' ORDER BY table_name`, catalog)
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, t)
	}
	return out, errors.Join(rows.Err(), rows.Close())
}

// syncFile flushes path (a file or a directory) to disk.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
