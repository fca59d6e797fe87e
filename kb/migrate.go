package kb

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
)

//go:embed migrations
var migrationFS embed.FS

// Migration is one embedded schema change. A shipped migration is never
// edited (a test pins their checksums); a change is a new file
// migrations/<store>/NNNN_name.sql.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations lists the embedded migrations of kind in version order.
func Migrations(kind Kind) ([]Migration, error) {
	dir := path.Join("migrations", string(kind))
	entries, err := fs.ReadDir(migrationFS, dir)
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, e := range entries {
		name := e.Name()
		num, rest, ok := strings.Cut(strings.TrimSuffix(name, ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(name, ".sql") {
			return nil, fmt.Errorf("migration %s/%s: name must be NNNN_name.sql", kind, name)
		}
		text, err := fs.ReadFile(migrationFS, path.Join(dir, name))
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: rest, SQL: string(text)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i, m := range out {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migrations of %s: version %d found where %d was expected", kind, m.Version, i+1)
		}
	}
	return out, nil
}

// LatestVersion is the schema version this binary writes for kind.
func LatestVersion(kind Kind) int {
	ms, err := Migrations(kind)
	if err != nil {
		panic(err) // embedded at build time; a test covers it
	}
	return len(ms)
}

const createMigrationsTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
    version     INTEGER NOT NULL,
    name        VARCHAR NOT NULL,
    applied_at  TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
)`

// schemaVersion is the highest applied version in catalog ("" for the
// default database); 0 for a store that has none yet. It asks
// schema_migrations directly and takes DuckDB's "no such table" for 0: a
// look in duckdb_tables() first cost six times the query, at every open.
func schemaVersion(ctx context.Context, q querier, catalog string) (int, error) {
	prefix := ""
	if catalog != "" {
		prefix = catalog + "."
	}
	var v sql.NullInt64
	err := q.QueryRowContext(ctx, "SELECT max(version) FROM "+prefix+"schema_migrations").Scan(&v)
	var de *duckdb.Error
	if errors.As(err, &de) && de.Type == duckdb.ErrorTypeCatalog && strings.Contains(de.Msg, "schema_migrations does not exist") {
		return 0, nil
	}
	return int(v.Int64), err
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// NewerStoreError refuses a store written by a newer cra.
type NewerStoreError struct {
	Store         string
	Version, Know int
}

func (e *NewerStoreError) Error() string {
	return fmt.Sprintf("%s has schema version %d but this cra knows versions up to %d: it was written by a newer cra — upgrade cra to use it",
		e.Store, e.Version, e.Know)
}

// migrate applies the pending migrations of kind, each with its
// schema_migrations row, in one transaction: a crash or a failing migration
// leaves the store at the version it had, and the next open goes on from
// there. One commit, not one per migration, is a third of a new store's
// cost.
// migrator is a *sql.DB, or a *sql.Conn whose current database (USE) is
// the store to migrate.
type migrator interface {
	querier
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

func migrate(ctx context.Context, db migrator, kind Kind, store string) error {
	ms, err := Migrations(kind)
	if err != nil {
		return err
	}
	current, err := schemaVersion(ctx, db, "")
	if err != nil {
		return fmt.Errorf("migrate %s: %w", store, err)
	}
	if current > len(ms) {
		return &NewerStoreError{Store: store, Version: current, Know: len(ms)}
	}
	if current == len(ms) {
		return nil // up to date: no write at all, so a short write's close has less to checkpoint
	}
	if err := checkMigratable(ctx, db, "", kind, current); err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, createMigrationsTable); err != nil {
		return fmt.Errorf("migrate %s: %w", store, err)
	}
	for _, m := range ms[current:] {
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return fmt.Errorf("migrate %s to version %d (%s): %w", store, m.Version, m.Name, err)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name) VALUES (?, ?)", m.Version, m.Name); err != nil {
			return fmt.Errorf("migrate %s: record version %d: %w", store, m.Version, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate %s: commit version %d: %w", store, len(ms), err)
	}
	return nil
}

// checkMigratable reports a DamagedError when the store in catalog ("" for
// the open database) is at version 0 — its schema_migrations table
// dropped or emptied — but holds tables, views or sequences: the
// migrations would all run again over what they made and fail on the
// first ("already exists"), so the store can no longer be opened for
// writing, and cra cannot tell which version it is at.
func checkMigratable(ctx context.Context, q querier, catalog string, kind Kind, version int) error {
	if version > 0 {
		return nil
	}
	var objects int
	err := q.QueryRowContext(ctx, `WITH db AS (SELECT coalesce(nullif(?, ''), current_database()) AS name)
		SELECT (SELECT count(*) FROM duckdb_tables() t, db WHERE t.database_name = db.name AND t.table_name <> 'schema_migrations')
			+ (SELECT count(*) FROM duckdb_views() v, db WHERE v.database_name = db.name AND NOT v.internal)
			+ (SELECT count(*) FROM duckdb_sequences() s, db WHERE s.database_name = db.name)`, catalog).Scan(&objects)
	if err != nil {
		return fmt.Errorf("check the schema of %s: %w", kind.File(), err)
	}
	if objects == 0 {
		return nil // new, or a first migration that never committed
	}
	e := &DamagedError{Store: kind.File(),
		Detail: fmt.Sprintf("its schema_migrations table is missing or empty, maybe dropped with `cra sql --write --allow-ddl`, "+
			"while it holds %d of cra's tables, views and sequences: no migration can run on it", objects)}
	if kind == Raw {
		e.Advice = "restore it from a copy (cp while no cra runs); else read what it holds with `cra sql` (it still opens read-only, " +
			"e.g. `cra sql -o runs.parquet \"select * from raw.task_runs\"`), then move it aside and `cra init` makes an empty one"
	}
	return e
}
