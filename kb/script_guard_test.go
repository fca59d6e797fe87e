package kb

import (
	"context"
	"errors"
	"testing"
)

// ownTarget, with DuckDB's parser saying what each statement is, names
// cra's own table whatever the prefix, quoting or case, and leaves the
// user's own tables and other statements alone.
func TestScriptOwnTarget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := writableHome(t)
	for _, q := range []string{"create table raw.mine (x int)", "create table curated.mine2 (x int)", "create view raw.myview as select 1"} {
		if _, err := a.Conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct{ stmt, verb, table string }{
		{"DROP TABLE schema_migrations", "drop", "schema_migrations"},
		{"drop table raw.schema_migrations", "drop", "raw.schema_migrations"},
		{`DROP TABLE "schema_migrations"`, "drop", "schema_migrations"},
		{`drop table "raw"."main"."Schema_Migrations"`, "drop", "raw.main.Schema_Migrations"},
		{"drop table if exists curated.schema_migrations", "drop", "curated.schema_migrations"},
		{"/* why */ -- note\n  drop   table\n curated . repos", "drop", "curated.repos"},
		{"drop table repos", "drop", "repos"},
		{"drop view raw.solve_trace", "drop", "raw.solve_trace"},
		{"drop sequence raw.task_runs_id_seq", "drop", "raw.task_runs_id_seq"},
		{"alter table raw.task_runs add column note varchar", "alter", "raw.task_runs"},
		{`ALTER TABLE curated."files" RENAME TO old_files`, "alter", `curated.files`},
		{"truncate raw.schema_migrations", "truncate", "raw.schema_migrations"},
		{"truncate table curated.symbols", "truncate", "curated.symbols"},
		{"create or replace table raw.task_runs as select 1 as x", "replace", "raw.task_runs"},
		{"create or replace view gen_ai_calls as select 1 as x", "replace", "gen_ai_calls"},
		// Not cra's, or not a change of its tables.
		{"drop table raw.mine", "", ""},
		{"drop table curated.mine2", "", ""},
		{"drop view myview", "", ""},
		{"alter table raw.mine add column y int", "", ""},
		{"truncate raw.mine", "", ""},
		{"create or replace table raw.mine as select 1 as x", "", ""},
		{"create or replace temp table repos as select 1 as x", "", ""},
		{"create table raw.mine3 (x int)", "", ""},
		{"delete from raw.schema_migrations where version > 100", "", ""},
		{"update curated.repos set head_commit = null where false", "", ""},
		{"select * from raw.schema_migrations", "", ""},
		{"insert into raw.mine values (1)", "", ""},
	}
	for _, tc := range cases {
		typ, err := statementType(ctx, a.Conn, tc.stmt)
		if err != nil {
			t.Errorf("%s: %v", tc.stmt, err)
			continue
		}
		if verb, table := ownTarget(typ, tc.stmt); verb != tc.verb || table != tc.table {
			t.Errorf("%q: %q %q, want %q %q", tc.stmt, verb, table, tc.verb, tc.table)
		}
	}

	// Every table, view and sequence a fresh store holds is one of cra's.
	for _, k := range Kinds {
		rows, err := a.Conn.QueryContext(ctx, `select table_name from duckdb_tables() where database_name = ?
			union all select view_name from duckdb_views() where database_name = ? and not internal
			union all select sequence_name from duckdb_sequences() where database_name = ?`, string(k), string(k), string(k))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				t.Fatal(err)
			}
			if n++; !ownObjects()[k][name] && name != "mine" && name != "mine2" && name != "myview" {
				t.Errorf("%s.%s is not known as cra's own", k, name)
			}
		}
		rows.Close()
		if n < 3 {
			t.Errorf("%s: only %d objects listed", k, n)
		}
	}
}

// RunScript refuses a change of cra's own tables with --write unless
// AllowDDL, and runs a script dropping the user's own table.
func TestScriptRefusesOwnTableDDL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := writableHome(t)
	noQuery := func(int, string) error { return nil }
	err := RunScript(ctx, a.Conn, "query", SplitStatements("create table raw.mine (x int); drop table raw.mine"), ScriptOptions{Write: true}, noQuery)
	if err != nil {
		t.Fatalf("the user's own table: %v", err)
	}
	err = RunScript(ctx, a.Conn, "query", []string{"select 1", "drop table raw.schema_migrations"}, ScriptOptions{Write: true}, noQuery)
	var own *OwnTableError
	var script *ScriptError
	if !errors.As(err, &own) || !errors.As(err, &script) || script.Statement != 2 || own.Table != "raw.schema_migrations" {
		t.Fatalf("drop schema_migrations: %v", err)
	}
	if v, err := schemaVersion(ctx, a.Conn, string(Raw)); err != nil || v != LatestVersion(Raw) {
		t.Fatalf("schema_migrations after the refusal: version %d, %v", v, err)
	}
	err = RunScript(ctx, a.Conn, "query", []string{"truncate raw.schema_migrations"}, ScriptOptions{Write: true, AllowDDL: true}, noQuery)
	if err != nil {
		t.Fatalf("--allow-ddl: %v", err)
	}
	if v, err := schemaVersion(ctx, a.Conn, string(Raw)); err != nil || v != 0 {
		t.Fatalf("after an allowed truncate: version %d, %v", v, err)
	}
}

// writableHome is a new home's two stores, attached for writing.
func writableHome(t *testing.T) *Attached {
	t.Helper()
	ctx := context.Background()
	dir := initHome(t)
	a, err := Attach(ctx, dir, true, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}
