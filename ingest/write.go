package ingest

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/cra-dev/cra/kb"
)

// writer is the single goroutine that writes one repository's rows into the
// curated store, always inside bounded transactions on its own connection.
type writer struct {
	kb.Writer
	conn   *sql.Conn
	repoID int64
	// goModules maps each go.mod's directory to its module path, as the
	// last tree walk found them; import resolution needs them.
	goModules map[string]string
}

func (w *writer) exec(ctx context.Context, query string, args ...any) error {
	_, err := w.conn.ExecContext(ctx, query, args...)
	return err
}

// nextIDs draws n ids from a table's sequence, so that rows appended with
// explicit ids (to link parents and children before they are written) agree
// with rows inserted later through the column default.
func (w *writer) nextIDs(ctx context.Context, sequence string, n int) ([]int64, error) {
	if n == 0 {
		return nil, nil
	}
	return kb.Column[int64](ctx, w.conn, fmt.Sprintf("SELECT nextval('%s') FROM range(%d)", sequence, n))
}

// scan runs query with the repository id as its one argument and calls row
// for each row.
func (w *writer) scan(ctx context.Context, query string, row func(*sql.Rows) error) error {
	rows, err := w.conn.QueryContext(ctx, query, w.repoID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (w *writer) markStale(ctx context.Context) error {
	return w.exec(ctx, "UPDATE repos SET derived_stale = true WHERE id = ? AND NOT derived_stale", w.repoID)
}

// upsertRepo returns the repository's id, creating its row on first index.
func (w *writer) upsertRepo(ctx context.Context, path string, src *source) (int64, error) {
	var id int64
	err := w.Tx(ctx, func() error {
		err := w.conn.QueryRowContext(ctx, "SELECT id FROM repos WHERE path = ?", path).Scan(&id)
		if err == sql.ErrNoRows {
			return w.conn.QueryRowContext(ctx, `INSERT INTO repos (path, remote_url, indexed_at, is_git)
				VALUES (?, ?, now(), ?) RETURNING id`, path, nullable(src.remote), src.git).Scan(&id)
		}
		if err != nil {
			return err
		}
		return w.exec(ctx, "UPDATE repos SET remote_url = ?, is_git = ? WHERE id = ?", nullable(src.remote), src.git, id)
	})
	return id, err
}

// finishRepo stamps the run on the repository's row.
func (w *writer) finishRepo(ctx context.Context, src *source, res *Result) error {
	var head any
	if src.head != "" {
		head = src.head
	}
	if err := w.exec(ctx, "UPDATE repos SET indexed_at = now(), tree_rev = ?, head_commit = coalesce(?, head_commit) WHERE id = ?",
		src.rev(), head, w.repoID); err != nil {
		return err
	}
	if res.FilesChanged+res.CommitsAdded > 2000 {
		return w.exec(ctx, "CHECKPOINT")
	}
	return nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
