package kb

import (
	"context"
	"database/sql"
	"reflect"
	"testing"
)

func TestSplitStatements(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in string
		want     []string
	}{
		{"one", "select 1", []string{"select 1"}},
		{"two", "select 1; select 2;", []string{"select 1", "select 2"}},
		{"empty ones", ";; select 1 ;\n;", []string{"select 1"}},
		{"semicolon in string", "select 'a;b'; select 2", []string{"select 'a;b'", "select 2"}},
		{"escaped quote", "select 'it''s;'; select 2", []string{"select 'it''s;'", "select 2"}},
		{"quoted identifier", `select 1 as "x;y"; select 2`, []string{`select 1 as "x;y"`, "select 2"}},
		{"line comment", "select 1; -- a; comment\nselect 2", []string{"select 1", "-- a; comment\nselect 2"}},
		{"trailing comment only", "select 1;\n-- done;\n", []string{"select 1"}},
		{"block comment", "select /* ; */ 1; select 2", []string{"select /* ; */ 1", "select 2"}},
		{"dollar quoted", "select $$a;b$$; select $tag$;$tag$", []string{"select $$a;b$$", "select $tag$;$tag$"}},
		{"unterminated string", "select 'abc; select 2", []string{"select 'abc; select 2"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := SplitStatements(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestReturnsRows(t *testing.T) {
	t.Parallel()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "create table t (x int)"); err != nil {
		t.Fatal(err)
	}
	cases := map[string]bool{
		"select 1":                             true,
		"from t":                               true,
		"with a as (select 1) select * from a": true,
		"explain select 1":                     true,
		"pragma table_info('t')":               true,
		"describe t":                           true,
		"show tables":                          true,
		"insert into t values (1)":             false,
		"insert into t values (2) returning x": true,
		"create table u (y int)":               false,
		"update t set x = 3":                   false,
		"set threads = 1":                      false,
	}
	for stmt, want := range cases {
		got, err := ReturnsRows(ctx, conn, stmt)
		if err != nil {
			t.Errorf("%s: %v", stmt, err)
			continue
		}
		if got != want {
			t.Errorf("%s: returns rows = %v, want %v", stmt, got, want)
		}
	}
}
