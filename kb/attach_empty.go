package kb

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strconv"
)

// AttachEmpty is an in-memory session shaped like Attach's without a
// home: in-memory databases attached as "curated" and "raw", each with
// every migration of its kind applied, and the same search_path. Readers
// of stores kept elsewhere (`cra sql --shards`: Parquet files) replace its
// empty tables with views, so users' SQL and the notebooks run unchanged.
// Nothing it holds outlives Close.
func AttachEmpty(ctx context.Context) (*Attached, error) {
	tmp, err := os.MkdirTemp("", "cra-attach-")
	if err != nil {
		return nil, err
	}
	a := &Attached{tmp: tmp}
	ok := false
	defer func() {
		if !ok {
			a.Close()
		}
	}()
	q := url.Values{}
	q.Set("memory_limit", MemoryLimit())
	q.Set("threads", strconv.Itoa(Threads()))
	q.Set("temp_directory", tmp)
	if a.db, err = sql.Open("duckdb", "?"+q.Encode()); err != nil {
		return nil, err
	}
	if a.Conn, err = a.db.Conn(ctx); err != nil {
		return nil, err
	}
	for _, k := range Kinds {
		if _, err := a.Conn.ExecContext(ctx, fmt.Sprintf("ATTACH ':memory:' AS %s", k)); err != nil {
			return nil, err
		}
		if _, err := a.Conn.ExecContext(ctx, "USE "+string(k)); err != nil {
			return nil, err
		}
		if err := migrate(ctx, a.Conn, k, "in-memory "+string(k)); err != nil {
			return nil, err
		}
	}
	if _, err := a.Conn.ExecContext(ctx, "USE memory"); err != nil {
		return nil, err
	}
	if _, err := a.Conn.ExecContext(ctx, "SET search_path = 'raw,curated'"); err != nil {
		return nil, err
	}
	ok = true
	return a, nil
}
