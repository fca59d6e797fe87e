package kb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// Writer writes a store on one connection, always inside bounded
// transactions; bulk rows go through DuckDB Appenders on that connection.
// One goroutine owns a Writer: neither the connection's transaction nor an
// Appender is safe for concurrent use.
type Writer struct {
	Conn *sql.Conn
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
