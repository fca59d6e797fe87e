package kb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// StoreStatus describes one store file.
type StoreStatus struct {
	Kind    Kind         `json:"kind"`
	Path    string       `json:"path"`
	Bytes   int64        `json:"bytes"` // the file plus its write-ahead log
	Version int          `json:"schema_version"`
	Tables  []TableCount `json:"tables"`
}

// TableCount is the row count of one table.
type TableCount struct {
	Table string `json:"table"`
	Rows  int64  `json:"rows"`
}

// LastRun is the newest run of one kind.
type LastRun struct {
	Kind  string     `json:"kind"`
	Count int64      `json:"count"`
	Last  *time.Time `json:"last"` // nil when there has been none
}

// Status is what `cra status` reports.
type Status struct {
	Stores   []StoreStatus `json:"stores"`
	LastRuns []LastRun     `json:"last_runs"`
}

// runKinds says where each kind of run is logged. Later migrations add theirs.
var runKinds = []struct{ kind, query string }{
	{"index", "SELECT 'index', count(*), max(timestamp) FROM raw.index_runs"},
	{"task", `SELECT 'task:' || mode, count(*), max(timestamp) FROM raw.task_runs GROUP BY mode
		UNION ALL SELECT 'task', 0, NULL WHERE NOT EXISTS (FROM raw.task_runs) ORDER BY 1`},
	{"bootstrap", "SELECT 'bootstrap', count(*), max(started_at) FROM raw.bootstrap_runs"},
	{"orchestrator", "SELECT 'orchestrator', count(*), max(timestamp) FROM raw.orchestrator_runs"},
	{"enrich", "SELECT 'enrich', count(*), max(timestamp) FROM raw.enrichment_outputs"},
	{"train_plan", "SELECT 'train_plan', count(*), max(timestamp) FROM raw.training_plans"},
	{"curate", "SELECT 'curate', count(*), max(timestamp) FROM raw.training_datasets"},
}

// ReadStatus reads the status of the home dir's stores, read-only.
func ReadStatus(ctx context.Context, dir string) (*Status, error) {
	a, err := Attach(ctx, dir, false, "")
	if err != nil {
		return nil, err
	}
	defer a.Close()
	st := &Status{}
	for _, k := range Kinds {
		path := k.Path(dir)
		ss := StoreStatus{Kind: k, Path: path, Bytes: fileSize(path) + fileSize(path+".wal")}
		if ss.Version, err = schemaVersion(ctx, a.Conn, string(k)); err != nil {
			return nil, err
		}
		rows, err := a.Conn.QueryContext(ctx, `SELECT table_name FROM duckdb_tables()
			WHERE database_name = ? AND schema_name = 'main' ORDER BY table_name`, string(k))
		if err != nil {
			return nil, err
		}
		var tables []string
		for rows.Next() {
			var t string
			if err := rows.Scan(&t); err != nil {
				rows.Close()
				return nil, err
			}
			tables = append(tables, t)
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return nil, err
		}
		for _, t := range tables {
			var n int64
			if err := a.Conn.QueryRowContext(ctx, fmt.Sprintf("SELECT count(*) FROM %s.main.%q", k, t)).Scan(&n); err != nil {
				return nil, fmt.Errorf("count %s.%s: %w", k, t, err)
			}
			ss.Tables = append(ss.Tables, TableCount{Table: t, Rows: n})
		}
		st.Stores = append(st.Stores, ss)
	}
	for _, rk := range runKinds {
		rows, err := a.Conn.QueryContext(ctx, rk.query)
		if err != nil {
			return nil, fmt.Errorf("last %s runs: %w", rk.kind, err)
		}
		for rows.Next() {
			var lr LastRun
			var last *time.Time
			if err := rows.Scan(&lr.Kind, &lr.Count, &last); err != nil {
				rows.Close()
				return nil, err
			}
			lr.Last = last
			st.LastRuns = append(st.LastRuns, lr)
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return nil, fmt.Errorf("last %s runs: %w", rk.kind, err)
		}
	}
	return st, nil
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
