package main

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/golden"
)

type result struct {
	code           int
	stdout, stderr string
}

// craCLI runs the whole CLI in this process (Run).
var craCLI = clitest.New(Run)

// cra runs the whole CLI in-process with --home set to home.
func cra(t testing.TB, home string, stdin string, args ...string) result {
	t.Helper()
	r := craCLI.Cra(t, home, stdin, args...)
	return result{r.Code, r.Stdout, r.Stderr}
}

func mustRun(t testing.TB, home string, args ...string) string {
	t.Helper()
	return craCLI.MustRun(t, home, args...)
}

// sqlRows runs queries in one cra sql (one attach of the stores, which
// costs more than most queries): CSV, a blank line between result sets.
func sqlRows(t testing.TB, home string, queries ...string) string {
	t.Helper()
	return craCLI.SQLRows(t, home, queries...)
}

// modelHome is a new home served by the fake model at baseURL
// (clitest.CLI.ModelHome).
func modelHome(t testing.TB, baseURL string) string {
	t.Helper()
	return craCLI.ModelHome(t, baseURL)
}

// newHome is a new home as `cra init` leaves it (clitest.CLI.NewHome).
func newHome(t testing.TB) string {
	t.Helper()
	return craCLI.NewHome(t)
}

// fixtureHome is a home whose raw store holds rows exercising every value
// shape the formats must handle: NULLs, lists, JSON, times, newlines, quotes
// and non-ASCII text.
func fixtureHome(t *testing.T) string {
	home := newHome(t)
	mustRun(t, home, "sql", "--write", `
		INSERT INTO raw.task_runs (task_id, repo_path, mode, execute_model, context_window, reserved_tokens,
			stages, success, total_tokens, final_plan, timestamp) VALUES
		('t-1', '/repos/a', 'plan', 'qwen3:1.7b', 32768, 8192, ['scope', 'precision'], true, 1200,
			'{"steps": [{"id": "s1"}]}', TIMESTAMPTZ '2026-11-01 10:00:00+00'),
		('t-2', '/repos/b, "quoted"', 'implement', 'qwen3:1.7b', 32768, 8192, [], NULL, NULL,
			NULL, TIMESTAMPTZ '2026-11-02 11:30:00.25+00');
		INSERT INTO raw.retrieval_llm_calls (task_id, call_type, model, prompt, response, latency_ms, timestamp) VALUES
		('t-1', 'scope', 'qwen3:1.7b', 'line one
line two | piped', 'réponse ✓', 42, TIMESTAMPTZ '2026-11-01 10:00:01+00');
	`)
	return home
}

const fixtureQuery = `SELECT task_id, repo_path, stages, success, total_tokens, final_plan, timestamp FROM raw.task_runs ORDER BY task_id`

// [store] threads reaches the stores a command opens (cra sql reads
// DuckDB's setting back): one thread unless config.toml sets more.
// Not parallel: [store] threads is the process's, set by each command as
// it starts, and the commands of parallel tests run in this process too
// (one set it back to the default between this test's command setting 2
// and opening its store).
func TestStoreThreadsFromTheConfig(t *testing.T) {
	home := newHome(t)
	const q = "select current_setting('threads') as threads"
	if got := sqlRows(t, home, q); got != "threads\n1\n" {
		t.Errorf("by default: %q, want 1", got)
	}
	clitest.SetConfig(t, home, "[store]\n", "[store]\nthreads = 2\n")
	if got := sqlRows(t, home, q); got != "threads\n2\n" {
		t.Errorf("with threads = 2: %q", got)
	}
}

func TestSQLFormats(t *testing.T) {
	home := fixtureHome(t)
	for _, format := range []string{"table", "csv", "json", "jsonl", "markdown"} {
		t.Run(format, func(t *testing.T) {
			out := mustRun(t, home, "sql", "--format", format, fixtureQuery)
			golden.Assert(t, filepath.Join("testdata", "sql", "format_"+format+".golden"), []byte(out))
		})
	}
	t.Run("multiline and unicode", func(t *testing.T) {
		out := mustRun(t, home, "sql", "--format", "table", "select prompt, response from raw.retrieval_llm_calls")
		golden.Assert(t, filepath.Join("testdata", "sql", "table_escapes.golden"), []byte(out))
	})
}

func TestSQLJSONIsValidAndTyped(t *testing.T) {
	home := fixtureHome(t)
	var rows []map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, home, "--json", "sql", fixtureQuery)), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0]["total_tokens"] != float64(1200) || rows[1]["success"] != nil {
		t.Fatalf("unexpected rows: %v", rows)
	}
	if stages, ok := rows[0]["stages"].([]any); !ok || len(stages) != 2 {
		t.Fatalf("stages should be a JSON list: %#v", rows[0]["stages"])
	}
	if plan, ok := rows[0]["final_plan"].(map[string]any); !ok || plan["steps"] == nil {
		t.Fatalf("a JSON column should be a JSON object: %#v", rows[0]["final_plan"])
	}
}

func TestSQLDefaultFormatOffTerminalIsCSV(t *testing.T) {
	home := newHome(t)
	if out := mustRun(t, home, "sql", "select count(*) as n from raw.task_runs"); out != "n\n0\n" {
		t.Fatalf("got %q", out)
	}
}

func TestSQLMultiStatementFile(t *testing.T) {
	home := newHome(t)
	file := filepath.Join(t.TempDir(), "q.sql")
	script := `-- a notebook
create temp table t as select * from range(3) r(i);
insert into t values (10);
select sum(i) as total from t;   -- 13
select 'a;b' as s, count(*) as n from curated.files;
`
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, home, "sql", "--format", "csv", "-f", file)
	if want := "total\n13\n\ns,n\na;b,0\n"; out != want {
		t.Fatalf("got %q, want %q", out, want)
	}
	// The same script from stdin.
	if r := cra(t, home, script, "sql", "--format", "csv", "-f", "-"); r.stdout != out || r.code != 0 {
		t.Fatalf("stdin: %+v", r)
	}
}

func TestSQLIsReadOnlyUnlessWrite(t *testing.T) {
	home := newHome(t)
	insert := `insert into raw.index_runs (repo_path, files_scanned, files_changed, duration_ms, status, timestamp)
		values ('r', 1, 1, 1, 'ok', now())`
	r := cra(t, home, "", "sql", insert)
	if r.code != exitUsage || !strings.Contains(r.stderr, "read-only") || !strings.Contains(r.stderr, "--write") {
		t.Fatalf("read-only write: %+v", r)
	}
	if out := mustRun(t, home, "sql", "select count(*) from raw.index_runs"); !strings.HasSuffix(out, "\n0\n") {
		t.Fatalf("the refused insert landed: %q", out)
	}
	mustRun(t, home, "sql", "--write", insert)
	if out := mustRun(t, home, "sql", "select count(*) from index_runs"); !strings.HasSuffix(out, "\n1\n") {
		t.Fatalf("the --write insert is missing: %q", out)
	}
}

// cra sql --write refuses to drop cra's own tables (a dropped
// schema_migrations bricks the home) unless --allow-ddl; the user's own
// tables stay theirs to drop.
func TestSQLWriteRefusesDroppingOwnTables(t *testing.T) {
	home := newHome(t)
	migrations := func() string {
		return mustRun(t, home, "sql", "--format", "csv", "select count(*) as n from duckdb_tables() where table_name = 'schema_migrations'")
	}
	r := cra(t, home, "", "sql", "--write", "DROP TABLE schema_migrations")
	if r.code != exitUsage || !strings.Contains(r.stderr, "schema_migrations") || !strings.Contains(r.stderr, "--allow-ddl") {
		t.Fatalf("drop schema_migrations: exit %d, %q", r.code, r.stderr)
	}
	if got := migrations(); got != "n\n2\n" {
		t.Fatalf("schema_migrations after the refused drop: %q", got)
	}
	mustRun(t, home, "sql", "--write", "create table raw.mine (x int); drop table raw.mine")
	mustRun(t, home, "sql", "--write", "--allow-ddl", `drop table "raw".schema_migrations`)
	if got := migrations(); got != "n\n1\n" {
		t.Fatalf("schema_migrations after the --allow-ddl drop: %q", got)
	}
}

func TestSQLErrorsExit2WithDuckDBMessage(t *testing.T) {
	home := newHome(t)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"syntax", []string{"sql", "selec 1"}, `syntax error at or near "selec"`},
		{"missing table", []string{"sql", "select * from raw.nope"}, "Table with name nope does not exist"},
		{"second statement", []string{"sql", "select 1; select * from nope2"}, "statement 2"},
		{"no sql", []string{"sql"}, "no SQL"},
		{"bad format", []string{"sql", "--format", "xml", "select 1"}, `--format "xml"`},
		{"parquet needs -o", []string{"sql", "--format", "parquet", "select 1"}, "needs -o"},
		{"unknown flag", []string{"sql", "--nope", "select 1"}, "nope"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := cra(t, home, "", tc.args...)
			if r.code != exitUsage {
				t.Errorf("exit %d, want %d (stderr %q)", r.code, exitUsage, r.stderr)
			}
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr %q lacks %q", r.stderr, tc.want)
			}
		})
	}
}

func TestSQLOutputFiles(t *testing.T) {
	home := fixtureHome(t)
	dir := t.TempDir()
	pq := filepath.Join(dir, "runs.parquet")
	mustRun(t, home, "sql", "-o", pq, fixtureQuery+" -- the runs") // format from the extension
	csvPath := filepath.Join(dir, "runs.csv")
	mustRun(t, home, "sql", "--format", "csv", "-o", csvPath, fixtureQuery)

	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	var codec string
	if err := db.QueryRow(fmt.Sprintf("select count(*) from read_parquet('%s')", pq)).Scan(&n); err != nil || n != 2 {
		t.Fatalf("parquet rows = %d, %v", n, err)
	}
	if err := db.QueryRow(fmt.Sprintf("select any_value(compression) from parquet_metadata('%s')", pq)).Scan(&codec); err != nil || codec != "ZSTD" {
		t.Fatalf("parquet codec = %q, %v", codec, err)
	}
	data, err := os.ReadFile(csvPath)
	if err != nil || !strings.HasPrefix(string(data), "task_id,repo_path,") || strings.Count(string(data), "\n") != 3 {
		t.Fatalf("csv file: %q %v", data, err)
	}
	if r := cra(t, home, "", "sql", "-o", pq, "select 1; select 2"); r.code != exitUsage {
		t.Fatalf("two results into one file: %+v", r)
	}
}

func TestNotInitialisedHomeSaysRunInit(t *testing.T) {
	home := filepath.Join(t.TempDir(), "none")
	for _, args := range [][]string{{"sql", "select 1"}, {"status"}} {
		r := cra(t, home, "", args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "run `cra init`") {
			t.Errorf("%v: %+v", args, r)
		}
	}
}

// A command that needs an initialised home, run before `cra init`, says
// so (exit 2) and leaves the home as it found it: an empty folder stays
// empty (no locks/, no store), a missing one missing.
func TestNotInitialisedHomeStaysUntouched(t *testing.T) {
	r := gittest.New(t)
	r.Write("app.py", "x = 1\n")
	r.Commit("Create the app module with its first setting")
	commands := [][]string{
		{"bootstrap", r.Dir}, {"index", r.Dir}, {"enrich", r.Dir}, {"curate-data"}, {"eval"},
		{"datasets", "prune", "x"}, {"sql", "--write", "select 1"},
	}
	for _, args := range commands {
		empty, missing := t.TempDir(), filepath.Join(t.TempDir(), "none")
		for _, home := range []string{empty, missing} {
			res := cra(t, home, "", args...)
			if res.code != exitUsage || !strings.Contains(res.stderr, "run `cra init`") {
				t.Errorf("%v in %s: exit %d, stderr %q; want 2 saying run cra init", args, home, res.code, res.stderr)
			}
		}
		if entries, err := os.ReadDir(empty); err != nil || len(entries) != 0 {
			t.Errorf("%v left %v in an empty home (%v)", args, entries, err)
		}
		if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%v made the missing home (%v)", args, err)
		}
	}
}

func TestCompactCommand(t *testing.T) {
	home := fixtureHome(t)
	var res []struct {
		Store              string         `json:"store"`
		BytesBefore, After int64          `json:"-"`
		Tables             map[string]int `json:"tables"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, home, "--json", "compact", "--store", "raw")), &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Store != "raw.duckdb" || res[0].Tables["task_runs"] != 2 {
		t.Errorf("compact --store raw: %+v", res)
	}
	if got := mustRun(t, home, "sql", "--format", "csv", "SELECT count(*) FROM raw.task_runs"); got != "count_star()\n2\n" {
		t.Errorf("rows after compact: %q", got)
	}
	if r := cra(t, home, "", "compact", "--store", "nope"); r.code != exitUsage {
		t.Errorf("--store nope: exit %d", r.code)
	}
}

// Several statements give one JSON document (an array of result sets, each
// with its statement) and JSON Lines rows tagged with their statement.
func TestSQLSeveralStatementsAreOneMachineDocument(t *testing.T) {
	home := newHome(t)
	script := "select 1 as a union all select 2; select 'x' as b"
	var sets []struct {
		Statement int              `json:"statement"`
		SQL       string           `json:"sql"`
		Rows      []map[string]any `json:"rows"`
	}
	out := mustRun(t, home, "sql", "--format", "json", script)
	if err := json.Unmarshal([]byte(out), &sets); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, out)
	}
	if len(sets) != 2 || sets[0].Statement != 1 || len(sets[0].Rows) != 2 || sets[1].Statement != 2 || sets[1].Rows[0]["b"] != "x" ||
		!strings.HasPrefix(sets[1].SQL, "select 'x'") {
		t.Errorf("result sets %+v", sets)
	}
	lines := strings.Split(strings.TrimSpace(mustRun(t, home, "sql", "--format", "jsonl", script)), "\n")
	if len(lines) != 3 {
		t.Fatalf("jsonl: %d lines, want 3 rows", len(lines))
	}
	for i, want := range []int{1, 1, 2} {
		var l struct {
			Statement int            `json:"statement"`
			Row       map[string]any `json:"row"`
		}
		if err := json.Unmarshal([]byte(lines[i]), &l); err != nil || l.Statement != want || len(l.Row) != 1 {
			t.Errorf("jsonl line %d: %q (%v)", i, lines[i], err)
		}
	}
	// One statement: the plain array of rows, as before.
	if out := mustRun(t, home, "sql", "--format", "json", "select 1 as a"); strings.TrimSpace(out) != "[\n{\"a\":1}\n]" {
		t.Errorf("one statement: %q", out)
	}
}

// A --write script is all or nothing, unless it manages its own
// transactions.
func TestSQLWriteScriptIsOneTransaction(t *testing.T) {
	home := newHome(t)
	insert := `insert into raw.index_runs (repo_path, files_scanned, files_changed, duration_ms, status, timestamp) values ('%s', 1, 1, 1, 'ok', now())`
	r := cra(t, home, "", "sql", "--write", fmt.Sprintf(insert, "first")+"; select * from no_such_table")
	if r.code != exitUsage || !strings.Contains(r.stderr, "statement 2") {
		t.Fatalf("failing script: exit %d, %q", r.code, r.stderr)
	}
	count := func() string {
		return mustRun(t, home, "sql", "--format", "csv", "select count(*) as n from raw.index_runs")
	}
	if got := count(); got != "n\n0\n" {
		t.Errorf("statement 1 of a failed --write script was kept: %q", got)
	}
	// The script's own transactions: what it committed stays.
	r = cra(t, home, "", "sql", "--write", "begin; "+fmt.Sprintf(insert, "own")+"; commit; select * from no_such_table")
	if r.code != exitUsage {
		t.Fatalf("own transactions: exit %d, %q", r.code, r.stderr)
	}
	if got := count(); got != "n\n1\n" {
		t.Errorf("a script's own committed transaction was undone: %q", got)
	}
}

func TestVersionAndCompletion(t *testing.T) {
	home := t.TempDir()
	for _, args := range [][]string{{"--version"}, {"version"}} {
		if r := cra(t, home, "", args...); r.code != 0 || !strings.HasPrefix(r.stdout, "cra version ") || strings.Contains(r.stdout, "dev\n") {
			t.Errorf("%v: exit %d, %q", args, r.code, r.stdout)
		}
	}
	if r := cra(t, home, "", "--help"); !strings.Contains(r.stdout, "completion") {
		t.Errorf("--help does not list completion:\n%s", r.stdout)
	}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		if r := cra(t, home, "", "completion", shell); r.code != 0 || !strings.Contains(r.stdout, "cra") {
			t.Errorf("completion %s: exit %d, %.100q", shell, r.code, r.stdout)
		}
	}
}
