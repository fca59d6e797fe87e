package kb

import (
	"context"
	"database/sql"
	"testing"
)

// storageVersion is the storage format DuckDB reads in the file at path,
// as duckdb_databases() names it ("v1.5.0+").
func storageVersion(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("duckdb", path+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v string
	if err := db.QueryRow(`SELECT tags['storage_version'] FROM duckdb_databases() WHERE NOT internal AND database_name NOT IN ('memory')`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// The stores cra makes are in StorageVersion: Init's, Create's and the
// copy Compact writes, so compact brings a store an older cra made (in
// DuckDB's default v1.0.0 format, which an open leaves as it is) to it.
func TestStoresAreMadeInTheStorageVersion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	want := StorageVersion + "+"
	home := t.TempDir()
	if err := Init(ctx, home, "cra init"); err != nil {
		t.Fatal(err)
	}
	for _, k := range Kinds {
		if got := storageVersion(t, k.Path(home)); got != want {
			t.Errorf("Init made %s in %q, want %q", k.File(), got, want)
		}
	}
	scratch := t.TempDir()
	s, err := Create(ctx, scratch, Curated, "cra eval")
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if got := storageVersion(t, Curated.Path(scratch)); got != want {
		t.Errorf("Create made %q, want %q", got, want)
	}

	old := t.TempDir()
	db, err := sql.Open("duckdb", Raw.Path(old))
	if err == nil {
		_, err = db.Exec("SELECT 1")
		db.Close()
	}
	if err == nil {
		err = Init(ctx, old, "cra init")
	}
	if err == nil {
		err = WithWriter(ctx, old, Raw, Options{Command: "test"}, func(w Writer) error {
			_, err := w.Conn.ExecContext(ctx, `INSERT INTO bootstrap_runs (started_at, repos, status, options) SELECT now(), 1, 'ok', '{}' FROM range(2)`)
			return err
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := storageVersion(t, Raw.Path(old)); got != "v1.0.0+" {
		t.Fatalf("an older store migrated by Init is in %q, want it left in v1.0.0+", got)
	}
	res, err := Compact(ctx, old, Raw, "cra compact")
	if err != nil {
		t.Fatal(err)
	}
	if got := storageVersion(t, Raw.Path(old)); got != want || res.Tables["bootstrap_runs"] != 2 {
		t.Errorf("compacted: %q with %d rows of bootstrap_runs, want %q with 2", got, res.Tables["bootstrap_runs"], want)
	}
}
