package kb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// Writer writes a store on one connection, always inside bounded
// transactions; bulk rows go through DuckDB Appenders on that connection.
// One goroutine owns a Writer: neither the connection's transaction nor an
// Appender is safe for concurrent use.
type Writer struct {
	Conn *sql.Conn
	// DB is the store the connection belongs to, for a reader on a
	// connection of its own while this one writes; nil when not known.
	DB *sql.DB
}

// Tx runs fn in one transaction: committed when fn succeeds, rolled back
// otherwise (a kill -9 in between leaves DuckDB's WAL to roll it back).
func (w Writer) Tx(ctx context.Context, fn func() error) (err error) {
	if _, err := w.Conn.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			// Rolling back must not depend on the cancelled context.
			w.Conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK") //nolint:errcheck
		}
	}()
	if err = fn(); err != nil {
		return err
	}
	_, err = w.Conn.ExecContext(ctx, "COMMIT")
	return err
}

// Appender appends rows to columns of table on the writer's connection, in
// its current transaction. Columns left out take their defaults.
func (w Writer) Appender(table string, columns ...string) (*duckdb.Appender, error) {
	var a *duckdb.Appender
	err := w.Conn.Raw(func(dc any) error {
		var err error
		a, err = duckdb.NewAppenderWithColumns(dc.(driver.Conn), "", "", table, columns)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("appender on %s: %w", table, err)
	}
	return a, nil
}

// AppendAll appends every row to table and closes the appender (which
// flushes). rows hold column values in the order of columns.
func (w Writer) AppendAll(table string, columns []string, rows [][]driver.Value) error {
	if len(rows) == 0 {
		return nil
	}
	a, err := w.Appender(table, columns...)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := a.AppendRow(r...); err != nil {
			a.Close()
			return fmt.Errorf("append to %s: %w", table, err)
		}
	}
	if err := a.Close(); err != nil {
		return fmt.Errorf("append to %s: %w", table, err)
	}
	return nil
}

// WithWriter opens the store of kind in home dir for writing (opts.Write is
// implied), runs fn on one connection of it and closes it, so the store is
// held only for fn. Batches call it per burst of writes.
func WithWriter(ctx context.Context, dir string, kind Kind, opts Options, fn func(Writer) error) error {
	opts.Write = true
	return WithStore(ctx, dir, kind, opts, fn)
}

// WithStore is WithWriter opening the store read-only unless opts.Write.
func WithStore(ctx context.Context, dir string, kind Kind, opts Options, fn func(Writer) error) error {
	s, err := Open(ctx, dir, kind, opts)
	if err != nil {
		return err
	}
	conn, err := s.DB.Conn(ctx)
	if err != nil {
		s.Close()
		return err
	}
	err = fn(Writer{Conn: conn, DB: s.DB})
	return Explain(errors.Join(err, conn.Close(), s.Close()))
}

// AppendNew appends the rows of rows whose key is in neither table nor an
// earlier row: the anti-join on deterministic ids that keeps an append-only
// table free of duplicates even if two runs race. key names the key
// columns (VARCHAR, among columns). Call it inside a transaction: the write
// lock held for it keeps the check and the append together. It returns the
// rows appended.
func (w Writer) AppendNew(ctx context.Context, table string, columns, key []string, rows [][]driver.Value) (int, error) {
	if len(rows) == 0 {
		return 0, nil
	}
	at := make([]int, len(key))
	for i, k := range key {
		at[i] = slices.Index(columns, k)
		if at[i] < 0 {
			return 0, fmt.Errorf("append to %s: key column %s is not among the columns", table, k)
		}
	}
	keyOf := func(r []driver.Value) string {
		parts := make([]string, len(at))
		for i, c := range at {
			parts[i] = fmt.Sprint(r[c])
		}
		return strings.Join(parts, "\x00")
	}
	keys := make([]string, len(rows))
	for i, r := range rows {
		keys[i] = keyOf(r)
	}
	// Each key column is filtered on the values this batch has (a filter
	// on a plain column DuckDB pushes into the scan: a dataset's name and
	// version, a repository), so only the candidate rows build a key.
	var conds []string
	var args []any
	for i, k := range key {
		list, typ := columnValues(rows, at[i])
		conds = append(conds, fmt.Sprintf("%s IN (SELECT unnest(?::%s[]))", k, typ))
		args = append(args, list)
	}
	q := fmt.Sprintf("SELECT concat_ws(chr(0), %s) FROM %s WHERE %s", strings.Join(key, ", "), table, strings.Join(conds, " AND "))
	res, err := w.Conn.QueryContext(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("append to %s: existing keys: %w", table, err)
	}
	have := map[string]bool{}
	for res.Next() {
		var k string
		if err := res.Scan(&k); err != nil {
			res.Close()
			return 0, err
		}
		have[k] = true
	}
	if err := errors.Join(res.Err(), res.Close()); err != nil {
		return 0, err
	}
	var fresh [][]driver.Value
	for i, r := range rows {
		if !have[keys[i]] {
			have[keys[i]] = true
			fresh = append(fresh, r)
		}
	}
	return len(fresh), w.AppendAll(table, columns, fresh)
}

// columnValues are the distinct values of column c of rows as a list
// parameter, with its SQL type: BIGINT for integers, else VARCHAR.
func columnValues(rows [][]driver.Value, c int) (any, string) {
	ints, strs := []int64{}, []string{}
	seenI, seenS := map[int64]bool{}, map[string]bool{}
	allInts := true
	for _, r := range rows {
		switch v := r[c].(type) {
		case int:
			if !seenI[int64(v)] {
				seenI[int64(v)] = true
				ints = append(ints, int64(v))
			}
		case int64:
			if !seenI[v] {
				seenI[v] = true
				ints = append(ints, v)
			}
		default:
			allInts = false
		}
		if s := fmt.Sprint(r[c]); !seenS[s] {
			seenS[s] = true
			strs = append(strs, s)
		}
	}
	if allInts {
		return ints, "BIGINT"
	}
	return strs, "VARCHAR"
}
