package kb

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fill writes several MB into the raw store, so the file has blocks to lose.
func fill(t *testing.T, dir string) {
	t.Helper()
	err := WithWriter(context.Background(), dir, Raw, Options{}, func(w Writer) error {
		_, err := w.Conn.ExecContext(context.Background(), `CREATE TABLE filler AS
			SELECT i, md5(i::VARCHAR) || md5((i * 7)::VARCHAR) || md5((i * 13)::VARCHAR) AS s FROM range(100000) r(i)`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// blockBytes is the size of a DuckDB block.
const blockBytes = 262144

// usedBlocks is how many blocks the store at p has in use.
func usedBlocks(t *testing.T, p string) int64 {
	t.Helper()
	db, err := sql.Open("duckdb", p+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRow("SELECT used_blocks FROM pragma_database_size()").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A store cut short (a copy or a write that stopped half way) or
// overwritten is refused at open, by readers, writers and attached
// sessions alike, with a DamagedError that names the file and says what
// to do; nothing is done on it.
func TestDamagedStoreIsRefusedAtOpen(t *testing.T) {
	t.Parallel()
	for name, damage := range map[string]func(path string) error{
		"truncated in half": func(p string) error {
			st, err := os.Stat(p)
			if err != nil {
				return err
			}
			return os.Truncate(p, st.Size()/2)
		},
		"cut inside a block in use": func(p string) error {
			return os.Truncate(p, headerBytes+usedBlocks(t, p)*blockBytes-1000)
		},
		"garbage": func(p string) error { return os.WriteFile(p, []byte(strings.Repeat("not a database\n", 2000)), 0o644) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := initHome(t)
			fill(t, dir)
			if err := damage(Raw.Path(dir)); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(Raw.Path(dir))
			opens := map[string]func() error{
				"read": func() error {
					s, err := Open(context.Background(), dir, Raw, Options{})
					s.Close()
					return err
				},
				"write": func() error {
					s, err := Open(context.Background(), dir, Raw, Options{Write: true})
					s.Close()
					return err
				},
				"attach": func() error {
					a, err := Attach(context.Background(), dir, false, "cra sql")
					a.Close()
					return err
				},
			}
			for how, open := range opens {
				err := open()
				var d *DamagedError
				if !errors.As(err, &d) || d.Store != Raw.File() {
					t.Fatalf("%s open of a damaged store: %v, want a DamagedError of raw.duckdb", how, err)
				}
				if msg := err.Error(); !strings.Contains(msg, "restore it from a copy") || strings.Contains(msg, "Possible solutions") {
					t.Errorf("%s: %q does not say what to do in cra's words", how, msg)
				}
			}
			if after, _ := os.ReadFile(Raw.Path(dir)); string(after) != string(before) {
				t.Error("the damaged file was changed")
			}
		})
	}
}

// A store whose file runs past the blocks its header counts, by whole
// blocks or part of one, is whole: a kill -9 while a checkpoint extended
// the file leaves it so, and CI once saw a raw store refused after one.
func TestStoreLongerThanItsHeaderOpens(t *testing.T) {
	t.Parallel()
	for name, tail := range map[string]int{"part of a block": 13 * 4096, "two blocks and a part": 2*blockBytes + 4096} {
		t.Run(name, func(t *testing.T) {
			dir := initHome(t)
			fill(t, dir)
			f, err := os.OpenFile(Raw.Path(dir), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Write(make([]byte, tail)); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			for _, write := range []bool{false, true} {
				s, err := Open(context.Background(), dir, Raw, Options{Write: write})
				if err != nil {
					t.Fatalf("open (write %v) of a store longer than its header: %v", write, err)
				}
				s.Close()
			}
			a, err := Attach(context.Background(), dir, false, "cra sql")
			if err != nil {
				t.Fatalf("attach of a store longer than its header: %v", err)
			}
			a.Close()
		})
	}
}

// A whole store, just written, is not taken for a damaged one.
func TestWholeStoreOpens(t *testing.T) {
	t.Parallel()
	dir := initHome(t)
	fill(t, dir)
	for _, k := range Kinds {
		s, err := Open(context.Background(), dir, k, Options{})
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		s.Close()
	}
	a, err := Attach(context.Background(), dir, false, "cra sql")
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
}

// DuckDB's out-of-memory, full-disk and corruption messages become cra's
// errors, with what failed kept and DuckDB's tuning advice left out;
// other errors pass unchanged.
func TestExplainSaysWhatToDo(t *testing.T) {
	t.Parallel()
	SetMemoryLimit("3GiB")
	t.Cleanup(func() { SetMemoryLimit("") })
	duck := func(s string) error {
		return errors.New("read the synthetic targets: " + s + "\n\nPossible solutions:\n* Reducing the number of threads (SET threads=X)")
	}
	for _, c := range []struct {
		err  error
		want []string
	}{
		{duck("Out of Memory Error: could not allocate block of size 256.0 KiB (121.8 MiB/122.0 MiB used)"),
			[]string{"ran out of memory", "memory_limit is 3GiB", "[store]", "read the synthetic targets"}},
		{duck("IO Error: Could not write file \"raw.duckdb.wal\": No space left on device"),
			[]string{"disk is full", "free some space", "raw.duckdb.wal"}},
		{duck("IO Error: Corrupt database file: computed checksum 5381 does not match stored checksum 0 in block at location 140521472"),
			[]string{"a store is damaged", "computed checksum"}},
	} {
		got := Explain(c.err).Error()
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("Explain(%q) = %q, want %q in it", firstLine(c.err.Error()), got, w)
			}
		}
		if strings.Contains(got, "Possible solutions") {
			t.Errorf("Explain kept DuckDB's advice: %q", got)
		}
	}
	plain := errors.New("Binder Error: column x not found")
	if Explain(plain) != plain {
		t.Error("an error that is none of those was changed")
	}
}

// Every store opens with the configured memory limit, and spills to a
// folder of its own under the home's tmp/, whose leftovers from a dead
// process are removed at the next open.
func TestStoresOpenWithTheMemoryLimitAndSpillInTheHome(t *testing.T) {
	t.Parallel()
	dir := initHome(t)
	SetMemoryLimit("700MiB")
	t.Cleanup(func() { SetMemoryLimit("") })
	dead := filepath.Join(TempDir(dir), "999999999-1")
	if err := os.MkdirAll(dead, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), dir, Raw, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var limit, temp string
	if err := s.DB.QueryRow("SELECT current_setting('memory_limit'), current_setting('temp_directory')").Scan(&limit, &temp); err != nil {
		t.Fatal(err)
	}
	if limit != "700.0 MiB" {
		t.Errorf("memory_limit %q, want 700.0 MiB", limit)
	}
	if !strings.HasPrefix(temp, TempDir(dir)+string(filepath.Separator)) {
		t.Errorf("temp_directory %q is not under %s", temp, TempDir(dir))
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the spill folder of a dead process is still there: %v", err)
	}
	SetMemoryLimit("")
	if got, want := MemoryLimit(), DefaultMemoryLimit(); got != want {
		t.Errorf("MemoryLimit() = %q with none set, want the default %q", got, want)
	}
}

// Every store opens with the threads set, one unless set: a store opened
// alone, and both attached (cra sql).
func TestStoresOpenWithTheThreadsSet(t *testing.T) {
	dir := initHome(t)
	ctx := context.Background()
	threadsOf := func() (alone, attached string) {
		s, err := Open(ctx, dir, Raw, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.DB.QueryRow("SELECT current_setting('threads')::VARCHAR").Scan(&alone); err != nil {
			t.Fatal(err)
		}
		a, err := Attach(ctx, dir, false, "cra sql")
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		if err := a.Conn.QueryRowContext(ctx, "SELECT current_setting('threads')::VARCHAR").Scan(&attached); err != nil {
			t.Fatal(err)
		}
		return alone, attached
	}
	t.Cleanup(func() { SetThreads(0) })
	for _, c := range []struct {
		set  int
		want string
	}{{0, "1"}, {3, "3"}, {0, "1"}} {
		SetThreads(c.set)
		if alone, attached := threadsOf(); alone != c.want || attached != c.want {
			t.Errorf("threads set to %d: %s alone, %s attached; want %s", c.set, alone, attached, c.want)
		}
	}
}

// The default memory limit is a thirty-second of the memory, between 1 and 4 GiB.
func TestDefaultMemoryLimit(t *testing.T) {
	t.Parallel()
	for total, want := range map[int64]string{
		0: "1024MiB", 8 << 30: "1024MiB", 24 << 30: "1024MiB", 32 << 30: "1024MiB", 48 << 30: "1536MiB",
		64 << 30: "2048MiB", 128 << 30: "4096MiB", 130 << 30: "4096MiB", 1 << 40: "4096MiB",
	} {
		if got := defaultMemoryLimit(total); got != want {
			t.Errorf("defaultMemoryLimit(%d GiB) = %s, want %s", total>>30, got, want)
		}
	}
}

// A store at version 0 is migratable when it holds nothing but (maybe) an
// empty schema_migrations — new, or its first migration never committed —
// and damaged when it holds anything else; a store with a version is
// never questioned here.
func TestCheckMigratable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		setup   string
		version int
		damaged bool
	}{
		{"new", "", 0, false},
		{"first migration never committed", createMigrationsTable, 0, false},
		{"a table and no migrations table", "CREATE TABLE runs (id INTEGER)", 0, true},
		{"a sequence", "CREATE SEQUENCE runs_id_seq", 0, true},
		{"a view", "CREATE VIEW v AS SELECT 1 AS one", 0, true},
		{"a table and an empty migrations table", createMigrationsTable + "; CREATE TABLE runs (id INTEGER)", 0, true},
		{"migrated", "CREATE TABLE runs (id INTEGER)", 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := sql.Open("duckdb", filepath.Join(t.TempDir(), "raw.duckdb"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if tc.setup != "" {
				if _, err := db.Exec(tc.setup); err != nil {
					t.Fatal(err)
				}
			}
			err = checkMigratable(context.Background(), db, "", Raw, tc.version)
			var d *DamagedError
			if errors.As(err, &d) != tc.damaged || (!tc.damaged && err != nil) {
				t.Fatalf("%v, want damaged %v", err, tc.damaged)
			}
			if tc.damaged && (d.Store != "raw.duckdb" || !strings.Contains(err.Error(), "schema_migrations")) {
				t.Errorf("message %q", err)
			}
		})
	}
}
