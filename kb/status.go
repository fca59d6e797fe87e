package kb

import (
	"context"
	"database/sql"
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
	Kind    string     `json:"kind"`
	Count   int64      `json:"count"`             // runs of this kind so far
	Last    *time.Time `json:"last"`              // when the newest started; nil when there has been none
	Status  string     `json:"status,omitempty"`  // the newest run's status, where the kind records one
	Seconds *float64   `json:"seconds,omitempty"` // its duration, once finished
	Detail  string     `json:"detail,omitempty"`  // what it did, in a few words
}

// Status is what `cra status` reports.
type Status struct {
	Stores   []StoreStatus `json:"stores"`
	LastRuns []LastRun     `json:"last_runs"`
}

// runKinds says where each kind of run is logged: each query gives kind,
// count, the newest run's start, status, seconds and a few words on what it
// did. Later migrations add theirs.
var runKinds = []struct{ kind, query string }{
	{"index", `SELECT 'index', (SELECT count(*) FROM raw.index_runs), timestamp, status, duration_ms / 1000.0,
			repo_path || ': ' || files_changed || ' files changed, ' || commits_added || ' new commits'
		FROM raw.index_runs UNION ALL SELECT 'index', 0, NULL, NULL, NULL, NULL
		ORDER BY timestamp DESC NULLS LAST LIMIT 1`},
	{"bootstrap", `SELECT 'bootstrap', (SELECT count(*) FROM raw.bootstrap_runs), r.started_at, r.status,
			epoch(r.finished_at - r.started_at),
			r.repos || ' repositories, ' || (SELECT count(*) FROM raw.bootstrap_commits c WHERE c.run_id = r.id) || ' commits mined, '
				|| (SELECT count(*) FROM raw.synthetic_tasks t WHERE t.run_id = r.id) || ' verified'
		FROM raw.bootstrap_runs r UNION ALL SELECT 'bootstrap', 0, NULL, NULL, NULL, NULL
		ORDER BY 3 DESC NULLS LAST LIMIT 1`},
	{"enrich", `SELECT 'enrich', count(DISTINCT date_trunc('minute', timestamp)), max(timestamp), NULL, NULL,
			count(*) FILTER (WHERE valid) || ' valid and ' || count(*) FILTER (WHERE NOT valid) || ' failed descriptions in all'
		FROM raw.enrichment_outputs`},
	{"curate", `SELECT 'curate', (SELECT count(*) FROM raw.dataset_versions), created_at, NULL, NULL,
			name || '@' || version || ': ' || examples || ' examples'
		FROM raw.dataset_versions UNION ALL SELECT 'curate', 0, NULL, NULL, NULL, NULL
		ORDER BY 3 DESC NULLS LAST LIMIT 1`},
	{"distill", `SELECT 'distill', (SELECT count(*) FROM raw.distill_runs), r.started_at, r.status,
			epoch(r.finished_at - r.started_at),
			r.name || ': ' || (SELECT count(*) FROM raw.distill_outcomes o WHERE o.run_id = r.id) || ' answers judged, '
				|| (SELECT count(*) FROM raw.distill_outcomes o WHERE o.run_id = r.id AND o.verified) || ' verified, $'
				|| round((SELECT coalesce(sum(coalesce(settled_usd, reserved_usd)), 0) FROM raw.distill_spend s WHERE s.run_id = r.id), 4)
				|| ' spent' || coalesce(', stopped: ' || r.stopped, '')
		FROM raw.distill_runs r UNION ALL SELECT 'distill', 0, NULL, NULL, NULL, NULL
		ORDER BY 3 DESC NULLS LAST LIMIT 1`},
	{"eval", evalStatus("eval", "NOT "+askEvalRun, "tasks")},
	{"ask_eval", evalStatus("ask_eval", askEvalRun, "questions")},
	{"task", `SELECT 'task:' || mode, count(*), max(timestamp), NULL, NULL, NULL FROM raw.task_runs GROUP BY mode
		UNION ALL SELECT 'task', 0, NULL, NULL, NULL, NULL WHERE NOT EXISTS (FROM raw.task_runs) ORDER BY 1`},
	{"orchestrator", "SELECT 'orchestrator', count(*), max(timestamp), NULL, NULL, NULL FROM raw.orchestrator_runs"},
	// Every train-plan run with evidence has a task_runs row; only one
	// that chose a stage has a training_plans row too.
	{"train_plan", `SELECT 'train_plan', (SELECT count(*) FROM raw.task_runs WHERE mode = '` + ModeTrainPlan + `'), t.timestamp,
			CASE WHEN t.success THEN '` + StatusOK + `' WHEN NOT t.success THEN '` + StatusFailed + `' ELSE '` + StatusRunning + `' END,
			t.total_latency_ms / 1000.0,
			coalesce('plan ' || p.id || ': train ' || p.target_stage, 'no stage chosen')
		FROM raw.task_runs t LEFT JOIN raw.training_plans p ON p.task_id = t.task_id
		WHERE t.mode = '` + ModeTrainPlan + `'
		UNION ALL SELECT 'train_plan', 0, NULL, NULL, NULL, NULL
		ORDER BY 3 DESC NULLS LAST LIMIT 1`},
}

// ReadStatus reads the status of the home dir's stores, read-only, opened
// as opts say (Command, Wait, Waiting; never Write).
func ReadStatus(ctx context.Context, dir string, opts Options) (*Status, error) {
	opts.Write = false
	a, err := AttachWith(ctx, dir, opts)
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
		if err := checkMigratable(ctx, a.Conn, string(k), k, ss.Version); err != nil {
			return nil, err
		}
		tables, err := tableNames(ctx, a.Conn, string(k))
		if err != nil {
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
			var status, detail sql.NullString
			if err := rows.Scan(&lr.Kind, &lr.Count, &lr.Last, &status, &lr.Seconds, &detail); err != nil {
				rows.Close()
				return nil, err
			}
			lr.Status, lr.Detail = status.String, detail.String
			if lr.Kind == "bootstrap" && lr.Status == StatusRunning && lr.Last != nil {
				lr.Status += " (or killed: the next bootstrap marks it interrupted)"
			}
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

// evalStatus is the last-run query of the eval runs r that where selects
// (cra eval's, or cra ask --eval's, whose tasks are questions).
func evalStatus(kind, where, tasks string) string {
	return `SELECT '` + kind + `', (SELECT count(*) FROM raw.eval_runs r WHERE ` + where + `), r.started_at, r.status,
			epoch(r.finished_at - r.started_at),
			r.name || coalesce(' (oracle ' || nullif(array_to_string(r.oracle, ','), '') || ')', '') || ': '
				|| (SELECT count(*) FROM raw.eval_tasks t WHERE t.eval_run_id = r.id AND t.status = 'scored') || ' ` + tasks + ` scored, '
				|| (SELECT count(*) FROM raw.eval_tasks t WHERE t.eval_run_id = r.id AND t.status = 'error') || ' could not run'
		FROM raw.eval_runs r WHERE ` + where + ` UNION ALL SELECT '` + kind + `', 0, NULL, NULL, NULL, NULL
		ORDER BY 3 DESC NULLS LAST LIMIT 1`
}
