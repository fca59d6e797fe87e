package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/gittest"
)

// On a raw store cut short no command reports success: status, sql,
// bootstrap and curate-data exit 2 saying, in cra's words, which store is
// damaged and what to do; the file is left as it was.
func TestDamagedStoreFailsEveryCommandInCrasWords(t *testing.T) {
	home := newHome(t)
	repo := gittest.New(t)
	repo.Write("parse.py", "def parse(s):\n    return s.split()\n")
	repo.Commit("add the parser module")
	mustRun(t, home, "sql", "--write", `CREATE TABLE raw.filler AS
		SELECT i, md5(i::VARCHAR) || md5((i * 7)::VARCHAR) || md5((i * 13)::VARCHAR) AS s FROM range(100000) r(i)`)
	path := filepath.Join(home, "raw.duckdb")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, st.Size()/2); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"status"}, {"sql", "select count(*) from raw.filler"}, {"bootstrap", repo.Dir}, {"curate-data"}} {
		r := cra(t, home, "", args...)
		if r.code != exitUsage {
			t.Errorf("cra %s on a damaged store: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, exitUsage, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stderr, "raw.duckdb is damaged") || !strings.Contains(r.stderr, "restore it from a copy") ||
			strings.Contains(r.stderr, "Possible solutions") {
			t.Errorf("cra %s: stderr %q does not say which store is damaged and what to do", strings.Join(args, " "), r.stderr)
		}
	}
	if st2, _ := os.Stat(path); st2.Size() != st.Size()/2 {
		t.Errorf("the damaged store was changed: %d bytes, was %d", st2.Size(), st.Size()/2)
	}
}

// A store whose schema_migrations is gone (`cra sql --write --allow-ddl`
// let the DROP through) cannot be migrated: every migration would run
// again over the tables it made. status says so — damaged, exit 2, what
// to do — instead of exit 0, and so does a command that would migrate it,
// instead of DuckDB's "already exists". Emptying the table is the same.
func TestStatusReportsAnUnmigratableStore(t *testing.T) {
	for _, tc := range []struct{ name, sql, store string }{
		{"raw dropped", "DROP TABLE raw.schema_migrations", "raw.duckdb"},
		{"curated dropped", "DROP TABLE curated.schema_migrations", "curated.duckdb"},
		{"raw emptied", "DELETE FROM raw.schema_migrations", "raw.duckdb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := newHome(t)
			mustRun(t, home, "sql", "--write", "--allow-ddl", tc.sql)
			for _, args := range [][]string{{"status"}, {"init"}} {
				r := cra(t, home, "", args...)
				if r.code != exitUsage || !strings.Contains(r.stderr, tc.store+" is damaged") ||
					!strings.Contains(r.stderr, "schema_migrations") || strings.Contains(r.stderr, "already exists") {
					t.Errorf("cra %s: exit %d, want %d naming the damage\nstdout: %s\nstderr: %s", args[0], r.code, exitUsage, r.stdout, r.stderr)
				}
			}
			// What it holds stays readable, to be saved or repaired.
			mustRun(t, home, "sql", "select count(*) from raw.task_runs")
		})
	}
}
