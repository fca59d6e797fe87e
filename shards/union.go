package shards

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/cra-dev/cra/kb"
)

// Attach opens the union of dir's committed shards without a home, for
// `cra sql --shards`: kb.AttachEmpty's session (every table of both
// stores, empty) with each exported table replaced by a view over the
// Parquet files the manifests name, read with hive_partitioning (the
// shard column). The views give what an import into a new home holds:
// rows deduplicated on the keys the import anti-joins on (the first
// shard's copy; a repository's newest row), and run ids numbered as that
// import numbers them. With no committed shard the tables stay empty.
func Attach(ctx context.Context, dir string) (*kb.Attached, error) {
	ms, err := Committed(dir)
	if err != nil {
		return nil, err
	}
	a, err := kb.AttachEmpty(ctx)
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return a, nil
	}
	if err := unionViews(ctx, a.Conn, dir, ms); err != nil {
		a.Close()
		return nil, fmt.Errorf("shards in %s: %w", dir, err)
	}
	return a, nil
}

// runMapTable holds, in the session's own memory catalog, each shard's
// run ids and the ids they get in the union.
const runMapTable = "memory.main.shard_run_ids"

func unionViews(ctx context.Context, conn *sql.Conn, dir string, ms []*Manifest) error {
	if _, err := conn.ExecContext(ctx, "CREATE TABLE "+runMapTable+" (shard BIGINT, source_run_id BIGINT, run_id BIGINT)"); err != nil {
		return err
	}
	// An import into a new home numbers runs in shard order, then by
	// their id in their home; a home's run seen in an earlier shard keeps
	// its number.
	type homeRun struct {
		home string
		id   int64
	}
	ids := map[homeRun]int64{}
	for _, m := range ms {
		file, ok := m.path(dir, runsTable)
		if !ok {
			return fmt.Errorf("the manifest of shard %d names no %s file: export it again", m.Shard, runsTable)
		}
		runs, err := runIDs(ctx, conn, file)
		if err != nil {
			return err
		}
		for _, id := range runs {
			k := homeRun{m.HomeID, id}
			if ids[k] == 0 {
				ids[k] = int64(len(ids) + 1)
			}
			if _, err := conn.ExecContext(ctx, "INSERT INTO "+runMapTable+" VALUES (?, ?, ?)", m.Shard, id, ids[k]); err != nil {
				return err
			}
		}
	}
	files := func(t string) string {
		var q []string
		for _, m := range ms {
			if p, ok := m.path(dir, t); ok {
				q = append(q, quote(p))
			}
		}
		return fmt.Sprintf("read_parquet([%s], hive_partitioning = true, union_by_name = true)", strings.Join(q, ", "))
	}
	views := map[string]string{
		runsTable: fmt.Sprintf(`SELECT * EXCLUDE (shard, _n) FROM (
			SELECT p.* REPLACE (m.run_id AS id), row_number() OVER (PARTITION BY m.run_id ORDER BY p.shard) AS _n
			FROM %s p JOIN %s m ON m.shard = p.shard AND m.source_run_id = p.id) WHERE _n = 1`, files(runsTable), runMapTable),
	}
	for _, t := range tables {
		sel, order := "p.*", "p.shard"
		from := files(t.name) + " p"
		if t.runCol != "" {
			sel = fmt.Sprintf("p.* REPLACE (m.run_id AS %s)", t.runCol)
			from += fmt.Sprintf(" JOIN %s m ON m.shard = p.shard AND m.source_run_id = p.%s", runMapTable, t.runCol)
		}
		if t.newest {
			order = "p.updated_at DESC, p.shard"
		}
		views[t.name] = fmt.Sprintf(`SELECT * EXCLUDE (shard, _n) FROM (
			SELECT %s, row_number() OVER (PARTITION BY %s ORDER BY %s) AS _n FROM %s) WHERE _n = 1`,
			sel, "p."+strings.Join(t.key, ", p."), order, from)
	}
	for _, name := range TableNames() {
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("DROP TABLE raw.%s", name)); err != nil {
			return err
		}
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("CREATE VIEW raw.%s AS %s", name, views[name])); err != nil {
			return fmt.Errorf("view %s: %w", name, err)
		}
	}
	return nil
}

func runIDs(ctx context.Context, conn *sql.Conn, file string) ([]int64, error) {
	return kb.Column[int64](ctx, conn, "SELECT id FROM "+readParquet(file)+" ORDER BY id")
}
