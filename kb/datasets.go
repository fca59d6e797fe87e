package kb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// DatasetRef names a dataset version as users write it: NAME (the latest
// version) or NAME@N.
type DatasetRef struct {
	Name    string
	Version int // 0: the latest
}

// ParseDatasetRef reads NAME or NAME@N.
func ParseDatasetRef(s string) (DatasetRef, error) {
	name, v, pinned := strings.Cut(s, "@")
	if name == "" {
		return DatasetRef{}, fmt.Errorf("dataset %q: give a name, NAME or NAME@VERSION", s)
	}
	if !pinned {
		return DatasetRef{Name: name}, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return DatasetRef{}, fmt.Errorf("dataset %q: the version after @ is a number from 1", s)
	}
	return DatasetRef{Name: name, Version: n}, nil
}

func (r DatasetRef) String() string {
	if r.Version == 0 {
		return r.Name
	}
	return fmt.Sprintf("%s@%d", r.Name, r.Version)
}

// DatasetInfo is one version of a dataset as the registry lists it.
type DatasetInfo struct {
	Name       string                    `json:"name"`
	Version    int                       `json:"version"`
	Examples   map[string]map[string]int `json:"examples"` // stage → split → count
	Dropped    map[string]int            `json:"dropped"`  // reason → count
	Criteria   json.RawMessage           `json:"criteria,omitempty"`
	CraVersion string                    `json:"cra_version,omitempty"`
	Created    string                    `json:"created"`
}

// DatasetVersions lists every version of the datasets of the raw store, by
// name then version; with name set, only that dataset's.
func DatasetVersions(ctx context.Context, q Querier, name string) ([]DatasetInfo, error) {
	rows, err := q.QueryContext(ctx, `SELECT v.name, v.version, coalesce(v.dropped::VARCHAR, '{}'),
		coalesce(v.criteria::VARCHAR, 'null'), coalesce(v.cra_version, ''), strftime(v.created_at, '%Y-%m-%dT%H:%M:%SZ'),
		d.stage_name,
		(SELECT count(*) FROM training_examples e WHERE e.dataset = v.name AND e.version = v.version
			AND e.stage = d.stage_name AND e.split = 'train'),
		(SELECT count(*) FROM training_examples e WHERE e.dataset = v.name AND e.version = v.version
			AND e.stage = d.stage_name AND e.split = 'validation')
		FROM dataset_versions v JOIN training_datasets d ON d.name = v.name AND d.version = v.version
		WHERE ? = '' OR v.name = ?
		ORDER BY v.name, v.version, d.stage_name`, name, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []DatasetInfo{}
	for rows.Next() {
		var d DatasetInfo
		var dropped, criteria, stage string
		var train, val int
		if err := rows.Scan(&d.Name, &d.Version, &dropped, &criteria, &d.CraVersion, &d.Created, &stage, &train, &val); err != nil {
			return nil, err
		}
		if n := len(out); n == 0 || out[n-1].Name != d.Name || out[n-1].Version != d.Version {
			d.Examples, d.Criteria = map[string]map[string]int{}, json.RawMessage(criteria)
			if err := json.Unmarshal([]byte(dropped), &d.Dropped); err != nil {
				return nil, fmt.Errorf("dataset %s@%d: dropped: %w", d.Name, d.Version, err)
			}
			out = append(out, d)
		}
		out[len(out)-1].Examples[stage] = map[string]int{SplitTrain: train, SplitValidation: val}
	}
	return out, rows.Err()
}

// ResolveDataset finds the version ref names (the latest for NAME), or an
// error wrapping ErrNotFound that lists what there is.
func ResolveDataset(ctx context.Context, q Querier, ref DatasetRef) (DatasetInfo, error) {
	all, err := DatasetVersions(ctx, q, ref.Name)
	if err != nil {
		return DatasetInfo{}, err
	}
	if len(all) == 0 {
		return DatasetInfo{}, fmt.Errorf("dataset %q: %w (see `cra datasets list`)", ref.Name, ErrNotFound)
	}
	if ref.Version == 0 {
		return all[len(all)-1], nil
	}
	var have []string
	for _, d := range all {
		if d.Version == ref.Version {
			return d, nil
		}
		have = append(have, strconv.Itoa(d.Version))
	}
	return DatasetInfo{}, fmt.Errorf("dataset %s: %w; its versions are %s", ref, ErrNotFound, strings.Join(have, ", "))
}

// NextDatasetVersion is the version a new build of dataset name takes: one
// past the newest registered. The examples a killed build of the name
// staged (written, never registered) are cleared first, in the writer's
// current transaction: the caller holds the name's lock, so no live build
// owns them, and a re-run stages the same version afresh.
func NextDatasetVersion(ctx context.Context, w Writer, name string) (int, error) {
	var v int
	if err := w.Conn.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) + 1 FROM dataset_versions WHERE name = ?`, name).Scan(&v); err != nil {
		return 0, err
	}
	_, err := w.Conn.ExecContext(ctx, `DELETE FROM `+stagingTable+` WHERE dataset = ?`, name)
	return v, err
}

// DatasetVersion is what registers one built version of a dataset.
type DatasetVersion struct {
	Name           string
	Version        int
	TrainingPlanID int64
	Examples       int
	Dropped        map[string]int
	Criteria       json.RawMessage
	CraVersion     string
	Created        time.Time
}

// RegisterDatasetVersion makes version v visible, in the writer's current
// transaction: it moves the version's staged examples into
// training_examples (INSERT ... SELECT inside DuckDB: memory does not grow
// with the dataset) and records v in dataset_versions. The caller records
// the version's training_datasets rows in the same transaction. v.Examples
// must be the number of examples staged: a version never holds other rows
// than it says.
func RegisterDatasetVersion(ctx context.Context, w Writer, v DatasetVersion) error {
	dropped, err := json.Marshal(v.Dropped)
	if err != nil {
		return err
	}
	cols := strings.Join(trainingExampleColumns, ", ")
	res, err := w.Conn.ExecContext(ctx, `INSERT INTO training_examples (`+cols+`) SELECT `+cols+` FROM `+stagingTable+`
		WHERE dataset = ? AND version = ?`, v.Name, v.Version)
	if err != nil {
		return fmt.Errorf("register %s: move its examples: %w", DatasetRef{Name: v.Name, Version: v.Version}, err)
	}
	if n, err := res.RowsAffected(); err != nil || n != int64(v.Examples) {
		return fmt.Errorf("register %s: %d examples staged, %d counted (%v): nothing registered",
			DatasetRef{Name: v.Name, Version: v.Version}, n, v.Examples, err)
	}
	if _, err := w.Conn.ExecContext(ctx, `DELETE FROM `+stagingTable+` WHERE dataset = ?`, v.Name); err != nil {
		return err
	}
	_, err = w.Conn.ExecContext(ctx, `INSERT INTO dataset_versions
		(name, version, training_plan_id, examples, dropped, criteria, cra_version, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		v.Name, v.Version, v.TrainingPlanID, v.Examples, string(dropped), string(v.Criteria), v.CraVersion, v.Created)
	return err
}

// PruneDataset deletes every version of dataset name but the newest keep
// (examples, per-stage rows and the version row), in one transaction of
// the writer, and returns the versions it deleted.
func PruneDataset(ctx context.Context, w Writer, name string, keep int) ([]int, error) {
	if keep < 1 {
		return nil, errors.New("prune: keep at least one version")
	}
	var gone []int
	err := w.Tx(ctx, func() error {
		rows, err := w.Conn.QueryContext(ctx, `SELECT version FROM dataset_versions WHERE name = ?
			ORDER BY version DESC OFFSET ?`, name, keep)
		if err != nil {
			return err
		}
		for rows.Next() {
			var v int
			if err := rows.Scan(&v); err != nil {
				rows.Close()
				return err
			}
			gone = append(gone, v)
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil || len(gone) == 0 {
			return err
		}
		// gone is every version up to its first (the newest deleted).
		for _, table := range []string{"training_examples WHERE dataset", "training_datasets WHERE name", "dataset_versions WHERE name"} {
			if _, err := w.Conn.ExecContext(ctx, `DELETE FROM `+table+` = ? AND version <= ?`, name, gone[0]); err != nil {
				return err
			}
		}
		return nil
	})
	return gone, err
}
