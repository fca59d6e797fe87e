package kb

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// The adapter registry (raw.adapters, adapter_gates, adapter_events): what
// `cra adapters` registers, the gate's verdicts and the routing changes.
// agent/adapters decides; this file only reads and writes the rows.

// AdapterRow is one registered version of a LoRA adapter.
type AdapterRow struct {
	Name           string   `json:"name"`
	Version        int      `json:"version"`
	Path           string   `json:"path"`
	BaseModel      string   `json:"base_model"`
	Rank           int      `json:"rank"`
	Alpha          float64  `json:"alpha"`
	TargetModules  []string `json:"target_modules"`
	WeightsFile    string   `json:"weights_file"`
	SHA256         string   `json:"sha256"`
	SizeBytes      int64    `json:"size_bytes"`
	Stages         []string `json:"stages"`
	Dataset        string   `json:"dataset,omitempty"` // "" when not given
	DatasetVersion int      `json:"dataset_version,omitempty"`
	TrainingPlanID int64    `json:"training_plan_id,omitempty"` // 0 when not given
	CraVersion     string   `json:"cra_version"`
	Created        string   `json:"created"` // UTC, 2006-01-02T15:04:05Z
}

// Ref is NAME@VERSION.
func (r AdapterRow) Ref() string { return fmt.Sprintf("%s@%d", r.Name, r.Version) }

const adapterColumns = `name, version, path, base_model, rank, alpha, target_modules, weights_file, sha256,
	size_bytes, stages, coalesce(dataset, ''), coalesce(dataset_version, 0), coalesce(training_plan_id, 0),
	coalesce(cra_version, ''), strftime(created_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ')`

func scanAdapter(rows *sql.Rows) (AdapterRow, error) {
	var a AdapterRow
	err := rows.Scan(&a.Name, &a.Version, &a.Path, &a.BaseModel, &a.Rank, &a.Alpha, stringList{&a.TargetModules}, &a.WeightsFile,
		&a.SHA256, &a.SizeBytes, stringList{&a.Stages}, &a.Dataset, &a.DatasetVersion, &a.TrainingPlanID, &a.CraVersion, &a.Created)
	return a, err
}

// AdapterVersions lists the registered adapter versions by name then
// version; with name set, only that adapter's.
func AdapterVersions(ctx context.Context, q Querier, name string) ([]AdapterRow, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+adapterColumns+` FROM adapters
		WHERE ? = '' OR name = ? ORDER BY name, version`, name, name)
	if err != nil {
		return nil, fmt.Errorf("read the adapter registry: %w", err)
	}
	defer rows.Close()
	out := []AdapterRow{}
	for rows.Next() {
		a, err := scanAdapter(rows)
		if err != nil {
			return nil, fmt.Errorf("read the adapter registry: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// AddAdapterVersion registers row as the next version of row.Name, unless
// a version of the name already has the same weights (sha256) and stages:
// then that version is returned and added is false. Call it inside one
// transaction of the raw store's writer, whose write lock keeps two
// processes from taking the same version.
func AddAdapterVersion(ctx context.Context, w Writer, row AdapterRow) (got AdapterRow, added bool, err error) {
	have, err := AdapterVersions(ctx, w.Conn, row.Name)
	if err != nil {
		return AdapterRow{}, false, err
	}
	for _, h := range have {
		if h.SHA256 == row.SHA256 && sameSet(h.Stages, row.Stages) {
			return h, false, nil
		}
	}
	row.Version = 1
	if n := len(have); n > 0 {
		row.Version = have[n-1].Version + 1
	}
	var dataset, datasetVersion, plan any
	if row.Dataset != "" {
		dataset, datasetVersion = row.Dataset, row.DatasetVersion
	}
	if row.TrainingPlanID != 0 {
		plan = row.TrainingPlanID
	}
	err = w.Conn.QueryRowContext(ctx, `INSERT INTO adapters (name, version, path, base_model, rank, alpha, target_modules,
			weights_file, sha256, size_bytes, stages, dataset, dataset_version, training_plan_id, cra_version, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?::VARCHAR[], ?, ?, ?, ?::VARCHAR[], ?, ?, ?, ?, now())
			RETURNING strftime(created_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ')`,
		row.Name, row.Version, row.Path, row.BaseModel, row.Rank, row.Alpha, nonNil(row.TargetModules),
		row.WeightsFile, row.SHA256, row.SizeBytes, nonNil(row.Stages), dataset, datasetVersion, plan, row.CraVersion).Scan(&row.Created)
	if err != nil {
		return AdapterRow{}, false, fmt.Errorf("register adapter %s: %w", row.Ref(), err)
	}
	return row, true, nil
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	x, y := append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(x)
	sort.Strings(y)
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// TrainingPlanStages is the stages training plan id targeted (its
// target_stage, one stage or a comma-separated list), or an error
// wrapping ErrNotFound.
func TrainingPlanStages(ctx context.Context, q Querier, id int64) ([]string, error) {
	var stages string
	err := q.QueryRowContext(ctx, `SELECT target_stage FROM training_plans WHERE id = ?`, id).Scan(&stages)
	if err == sql.ErrNoRows {
		return nil, fmt.Errorf("training plan %d: %w (its id is in the plan's JSON and in `cra sql \"select id, target_stage from raw.training_plans\"`)", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read training plan %d: %w", id, err)
	}
	var out []string
	for _, s := range strings.Split(stages, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// GateCondition is one condition of a gate verdict with the figures it
// was judged on (a paired difference, its interval, the task count).
type GateCondition struct {
	Name    string             `json:"name"`
	Passed  bool               `json:"passed"`
	Figures map[string]float64 `json:"figures"`
}

// GateFigures prints a condition's figures in name order, as every
// report of a verdict says them: (diff=0.12 low=-0.01).
func GateFigures(f map[string]float64) string {
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%.4g", k, f[k])
	}
	return "(" + strings.Join(parts, " ") + ")"
}

// GateRow is one verdict of the gate on an adapter version.
type GateRow struct {
	ID            int64             `json:"id"`
	Adapter       string            `json:"adapter"`
	Version       int               `json:"version"`
	Stages        []string          `json:"stages"`
	BaselineEval  string            `json:"baseline_eval"`
	CandidateEval string            `json:"candidate_eval"`
	Champions     map[string]string `json:"champions"` // stage → NAME@V judged against; "" for none
	Passed        bool              `json:"passed"`
	Conditions    []GateCondition   `json:"conditions"`
	ReportDir     string            `json:"report_dir,omitempty"`
	Created       string            `json:"created"`
}

// InsertAdapterGate records a gate verdict and returns its id.
func InsertAdapterGate(ctx context.Context, q Querier, g GateRow) (int64, error) {
	champions := map[string]*string{}
	for stage, ref := range g.Champions {
		if ref == "" {
			champions[stage] = nil
			continue
		}
		champions[stage] = &ref
	}
	cj, err := json.Marshal(champions)
	if err != nil {
		return 0, err
	}
	conditions := g.Conditions
	if conditions == nil {
		conditions = []GateCondition{}
	}
	condj, err := json.Marshal(conditions)
	if err != nil {
		return 0, err
	}
	var report any
	if g.ReportDir != "" {
		report = g.ReportDir
	}
	var id int64
	err = q.QueryRowContext(ctx, `INSERT INTO adapter_gates (adapter, version, stages, baseline_eval, candidate_eval,
			champions, passed, conditions, report_dir, created_at) VALUES (?, ?, ?::VARCHAR[], ?, ?, ?, ?, ?, ?, now()) RETURNING id`,
		g.Adapter, g.Version, nonNil(g.Stages), g.BaselineEval, g.CandidateEval, string(cj), g.Passed, string(condj), report).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("record the gate of %s@%d: %w", g.Adapter, g.Version, err)
	}
	return id, nil
}

// LatestAdapterGates is the latest gate verdict of every adapter version
// that has one, by NAME@V.
func LatestAdapterGates(ctx context.Context, q Querier) (map[string]GateRow, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, adapter, version, stages, baseline_eval, candidate_eval,
			champions::VARCHAR, passed, conditions::VARCHAR, coalesce(report_dir, ''),
			strftime(created_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ')
		FROM adapter_gates QUALIFY row_number() OVER (PARTITION BY adapter, version ORDER BY id DESC) = 1`)
	if err != nil {
		return nil, fmt.Errorf("read the adapter gates: %w", err)
	}
	defer rows.Close()
	out := map[string]GateRow{}
	for rows.Next() {
		var g GateRow
		var champions, conditions string
		if err := rows.Scan(&g.ID, &g.Adapter, &g.Version, stringList{&g.Stages}, &g.BaselineEval, &g.CandidateEval,
			&champions, &g.Passed, &conditions, &g.ReportDir, &g.Created); err != nil {
			return nil, fmt.Errorf("read the adapter gates: %w", err)
		}
		var ch map[string]*string
		if err := json.Unmarshal([]byte(champions), &ch); err != nil {
			return nil, fmt.Errorf("gate %d: champions: %w", g.ID, err)
		}
		g.Champions = map[string]string{}
		for stage, ref := range ch {
			if ref != nil {
				g.Champions[stage] = *ref
			} else {
				g.Champions[stage] = ""
			}
		}
		if err := json.Unmarshal([]byte(conditions), &g.Conditions); err != nil {
			return nil, fmt.Errorf("gate %d: conditions: %w", g.ID, err)
		}
		out[fmt.Sprintf("%s@%d", g.Adapter, g.Version)] = g
	}
	return out, rows.Err()
}

// Adapter event actions.
const (
	ActionPromote  = "promote"
	ActionRollback = "rollback"
	ActionForce    = "force" // a promotion without a passing gate, with a reason
)

// AdapterEvent is one routing change of a stage: its champion from one
// adapter version (or none) to another (or none).
type AdapterEvent struct {
	ID          int64  `json:"id"`
	Stage       string `json:"stage"`
	Action      string `json:"action"`
	FromName    string `json:"from_name,omitempty"` // "" for none
	FromVersion int    `json:"from_version,omitempty"`
	ToName      string `json:"to_name,omitempty"` // "" for none
	ToVersion   int    `json:"to_version,omitempty"`
	GateID      int64  `json:"gate_id,omitempty"` // 0 for none
	Reason      string `json:"reason,omitempty"`
	Actor       string `json:"actor"`
	Created     string `json:"created"`
}

// InsertAdapterEvent records e and returns it with its id and time.
func InsertAdapterEvent(ctx context.Context, q Querier, e AdapterEvent) (AdapterEvent, error) {
	null := func(s string, n int64) (any, any) {
		if s == "" {
			return nil, nil
		}
		return s, n
	}
	fromName, fromVersion := null(e.FromName, int64(e.FromVersion))
	toName, toVersion := null(e.ToName, int64(e.ToVersion))
	var gate, reason any
	if e.GateID != 0 {
		gate = e.GateID
	}
	if e.Reason != "" {
		reason = e.Reason
	}
	err := q.QueryRowContext(ctx, `INSERT INTO adapter_events (stage, action, from_name, from_version, to_name, to_version,
			gate_id, reason, actor, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, now())
			RETURNING id, strftime(created_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ')`,
		e.Stage, e.Action, fromName, fromVersion, toName, toVersion, gate, reason, e.Actor).Scan(&e.ID, &e.Created)
	if err != nil {
		return e, fmt.Errorf("record the %s of stage %s: %w", e.Action, e.Stage, err)
	}
	return e, nil
}

// AdapterEvents lists the routing changes in the order they happened;
// with stage set, only that stage's.
func AdapterEvents(ctx context.Context, q Querier, stage string) ([]AdapterEvent, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, stage, action, coalesce(from_name, ''), coalesce(from_version, 0),
			coalesce(to_name, ''), coalesce(to_version, 0), coalesce(gate_id, 0), coalesce(reason, ''), actor,
			strftime(created_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ')
		FROM adapter_events WHERE ? = '' OR stage = ? ORDER BY id`, stage, stage)
	if err != nil {
		return nil, fmt.Errorf("read the adapter events: %w", err)
	}
	defer rows.Close()
	out := []AdapterEvent{}
	for rows.Next() {
		var e AdapterEvent
		if err := rows.Scan(&e.ID, &e.Stage, &e.Action, &e.FromName, &e.FromVersion, &e.ToName, &e.ToVersion,
			&e.GateID, &e.Reason, &e.Actor, &e.Created); err != nil {
			return nil, fmt.Errorf("read the adapter events: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// AdapterChampions is each routed stage's champion (the `to` of the
// stage's latest event, when not none), in one query: every command
// that routes model calls reads it as it starts. A store not yet
// migrated to the registry has none.
func AdapterChampions(ctx context.Context, q Querier) (map[string]AdapterRow, error) {
	var has bool
	if err := q.QueryRowContext(ctx, `SELECT count(*) > 0 FROM duckdb_tables() WHERE table_name = 'adapter_events'`).Scan(&has); err != nil {
		return nil, fmt.Errorf("read the champions: %w", err)
	}
	if !has {
		return map[string]AdapterRow{}, nil
	}
	rows, err := q.QueryContext(ctx, `SELECT e.stage, a.name, a.version, a.sha256, a.path
		FROM (SELECT stage, to_name, to_version FROM adapter_events
			QUALIFY row_number() OVER (PARTITION BY stage ORDER BY id DESC) = 1) e
		JOIN adapters a ON a.name = e.to_name AND a.version = e.to_version`)
	if err != nil {
		return nil, fmt.Errorf("read the champions: %w", err)
	}
	defer rows.Close()
	out := map[string]AdapterRow{}
	for rows.Next() {
		var stage string
		var a AdapterRow
		if err := rows.Scan(&stage, &a.Name, &a.Version, &a.SHA256, &a.Path); err != nil {
			return nil, fmt.Errorf("read the champions: %w", err)
		}
		out[stage] = a
	}
	return out, rows.Err()
}
