package kb

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/golden"
)

// A child process started by a test holds a store's write lock until its
// stdin closes. See startHolder.
func TestMain(m *testing.M) {
	if dir := os.Getenv("CRA_TEST_HOLD_READ"); dir != "" {
		a, err := Attach(context.Background(), dir, false, "cra sql")
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("ready")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		a.Close()
		os.Exit(0)
	}
	if dir := os.Getenv("CRA_TEST_READ_ONCE"); dir != "" {
		a, err := Attach(context.Background(), dir, false, "cra sql")
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		var n int
		err = a.Conn.QueryRowContext(context.Background(), "SELECT count(*) FROM raw.eval_commit_judgements").Scan(&n)
		fmt.Println("rows:", n, err)
		a.Close()
		os.Exit(0)
	}
	if dir := os.Getenv("CRA_TEST_WRITE_ONCE"); dir != "" {
		// A second writer, as a batch run by cron: waits for the store,
		// writes one row, closes.
		err := WithWriter(context.Background(), dir, Raw, Options{Command: "cra bootstrap", Wait: 30 * time.Second}, func(w Writer) error {
			_, err := w.Conn.ExecContext(context.Background(), `INSERT INTO eval_commit_judgements VALUES ('other', 'c', 't', 'tests', 'fail_to_pass', [], [], [], 0, 0, 0, '', '', now())`)
			return err
		})
		fmt.Println("wrote:", err)
		os.Exit(0)
	}
	if dir := os.Getenv("CRA_TEST_HOLD_STORE"); dir != "" {
		s, err := Open(context.Background(), dir, Raw, Options{Write: true, Command: "cra bootstrap"})
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("ready")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		s.Close()
		os.Exit(0)
	}
	code := m.Run()
	if initialised.dir != "" {
		os.RemoveAll(initialised.dir)
	}
	os.Exit(code)
}

// initialised is a home as Init leaves it, made once per test binary by
// the first initHome; each initHome copies its stores.
var initialised struct {
	once sync.Once
	dir  string
	err  error
}

// initHome is a new home whose stores are those Init makes, byte for
// byte: a copy of one Init per test binary (a new store costs a catalog
// written and checkpointed, a copy a few milliseconds).
func initHome(t *testing.T) string {
	t.Helper()
	initialised.once.Do(func() {
		if initialised.dir, initialised.err = os.MkdirTemp("", "kb-initialised-"); initialised.err == nil {
			initialised.err = Init(context.Background(), initialised.dir, "cra init")
		}
	})
	if initialised.err != nil {
		t.Fatal(initialised.err)
	}
	dir := t.TempDir()
	for _, k := range Kinds {
		b, err := os.ReadFile(k.Path(initialised.dir))
		if err == nil {
			err = os.WriteFile(k.Path(dir), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestMigrationsCreateExactlyTheSchema(t *testing.T) {
	t.Parallel()
	dir := initHome(t)
	for _, k := range Kinds {
		s, err := Open(context.Background(), dir, k, Options{})
		if err != nil {
			t.Fatal(err)
		}
		rows, err := s.DB.Query(`SELECT table_name, column_name, data_type, is_nullable
			FROM information_schema.columns WHERE table_schema = 'main'
			ORDER BY table_name, ordinal_position`)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for rows.Next() {
			var table, col, typ, nullable string
			if err := rows.Scan(&table, &col, &typ, &nullable); err != nil {
				t.Fatal(err)
			}
			null := ""
			if nullable == "NO" {
				null = " NOT NULL"
			}
			fmt.Fprintf(&b, "%s.%s %s%s\n", table, col, typ, null)
		}
		rows.Close()
		s.Close()
		golden.Assert(t, filepath.Join("testdata", "schema_"+string(k)+".golden"), []byte(b.String()))
	}
}

func TestReopenIsANoOp(t *testing.T) {
	t.Parallel()
	dir := initHome(t)
	for range 2 {
		if err := Init(context.Background(), dir, "cra init"); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range Kinds {
		s, err := Open(context.Background(), dir, k, Options{Write: true, Command: "test"})
		if err != nil {
			t.Fatal(err)
		}
		var n, v int
		if err := s.DB.QueryRow("SELECT count(*), max(version) FROM schema_migrations").Scan(&n, &v); err != nil {
			t.Fatal(err)
		}
		if n != LatestVersion(k) || v != LatestVersion(k) {
			t.Errorf("%s: %d migration rows up to version %d, want %d", k, n, v, LatestVersion(k))
		}
		s.Close()
	}
}

// Pending migrations land together or not at all: a store behind by
// shards and bootstrap_walked, whose bootstrap_walked fails, stays at its
// version, without the tables of shards (which ran), and the error names
// the migration that failed.
func TestFailingMigrationLeavesTheStoreAtItsVersion(t *testing.T) {
	t.Parallel()
	dir := initHome(t)
	ms, err := Migrations(Raw)
	if err != nil {
		t.Fatal(err)
	}
	version := map[string]int{}
	for _, m := range ms {
		version[m.Name] = m.Version
	}
	shards, walked := version["shards"], version["bootstrap_walked"]
	if shards == 0 || walked != shards+1 {
		t.Fatalf("migrations shards (%d) and bootstrap_walked (%d) are not consecutive", shards, walked)
	}
	s, err := Open(context.Background(), dir, Raw, Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	// Back to the version before shards, but keep bootstrap_walked's
	// table, so that running it again fails ("already exists").
	for _, q := range []string{
		"DROP TABLE shard_home", "DROP TABLE shard_runs",
		fmt.Sprintf("DELETE FROM schema_migrations WHERE version >= %d", shards),
	} {
		if _, err := s.DB.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s, err = Open(context.Background(), dir, Raw, Options{Write: true})
	s.Close()
	if want := fmt.Sprintf("to version %d (bootstrap_walked)", walked); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("open: %v, want an error naming %q", err, want)
	}
	s, err = Open(context.Background(), dir, Raw, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v, shardTables int
	if err := s.DB.QueryRow(`SELECT (SELECT max(version) FROM schema_migrations),
		(SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE 'shard_%')`).Scan(&v, &shardTables); err != nil {
		t.Fatal(err)
	}
	if v != shards-1 || shardTables != 0 {
		t.Errorf("version %d with %d shard tables, want %d with none", v, shardTables, shards-1)
	}
}

func TestNewerStoreIsRefused(t *testing.T) {
	t.Parallel()
	dir := initHome(t)
	s, err := Open(context.Background(), dir, Raw, Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB.Exec("INSERT INTO schema_migrations (version, name) VALUES (999, 'from_the_future')"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for name, open := range map[string]func() error{
		"write": func() error {
			s, err := Open(context.Background(), dir, Raw, Options{Write: true})
			s.Close()
			return err
		},
		"read":   func() error { s, err := Open(context.Background(), dir, Raw, Options{}); s.Close(); return err },
		"attach": func() error { a, err := Attach(context.Background(), dir, false, ""); a.Close(); return err },
	} {
		err := open()
		var newer *NewerStoreError
		if !errors.As(err, &newer) || newer.Version != 999 {
			t.Errorf("%s: got %v, want a NewerStoreError for version 999", name, err)
			continue
		}
		if !strings.Contains(err.Error(), "upgrade cra") {
			t.Errorf("%s: message does not say what to do: %v", name, err)
		}
	}
}

// Nothing but cra init writes into a home it did not make: a writer, an
// input lock or a run lock there says to run cra init, and leaves the
// folder as it found it (empty, or missing).
func TestUninitialisedHomeStaysUntouched(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	empty, missing := t.TempDir(), filepath.Join(t.TempDir(), "home")
	for name, dir := range map[string]string{"empty": empty, "missing": missing} {
		for what, try := range map[string]func() error{
			"write curated": func() error { s, err := Open(ctx, dir, Curated, Options{Write: true}); s.Close(); return err },
			"write raw": func() error {
				s, err := Open(ctx, dir, Raw, Options{Write: true, Wait: time.Second})
				s.Close()
				return err
			},
			"input lock": func() error {
				l, err := LockInput(ctx, dir, "bootstrap", "/r", "cra bootstrap", 0)
				l.Release()
				return err
			},
			"run lock": func() error { l, err := LockRun(dir, "bootstrap", 1); l.Release(); return err },
		} {
			var ni *NotInitializedError
			if err := try(); !errors.As(err, &ni) || !strings.Contains(err.Error(), "cra init") {
				t.Errorf("%s home, %s: %v; want a NotInitializedError saying run cra init", name, what, err)
			}
		}
	}
	if entries, err := os.ReadDir(empty); err != nil || len(entries) != 0 {
		t.Errorf("empty home now holds %v (%v)", entries, err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing home: %v; want it still missing", err)
	}
	// One store missing is not initialised either.
	home := initHome(t)
	if err := os.Remove(Raw.Path(home)); err != nil {
		t.Fatal(err)
	}
	if err := CheckInitialized(home); err == nil || !strings.Contains(err.Error(), Raw.File()) {
		t.Errorf("home without %s: %v; want it named", Raw.File(), err)
	}
}

func TestReadOnlyOpenOfMissingStoreSaysRunInit(t *testing.T) {
	t.Parallel()
	_, err := Open(context.Background(), t.TempDir(), Curated, Options{})
	var ni *NotInitializedError
	if !errors.As(err, &ni) || !strings.Contains(err.Error(), "cra init") {
		t.Fatalf("got %v", err)
	}
	_, err = Attach(context.Background(), t.TempDir(), false, "")
	if !errors.As(err, &ni) {
		t.Fatalf("attach: got %v", err)
	}
}

// TestShippedMigrationsAreNeverEdited pins the checksum of every migration
// once shipped: editing one fails here; a new one is appended with -update.
func TestShippedMigrationsAreNeverEdited(t *testing.T) {
	t.Parallel()
	path := filepath.Join("testdata", "migrations.sha256")
	var b strings.Builder
	for _, k := range Kinds {
		ms, err := Migrations(k)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			fmt.Fprintf(&b, "%x %s/%04d_%s.sql\n", sha256.Sum256([]byte(m.SQL)), k, m.Version, m.Name)
		}
	}
	got := b.String()
	want, err := os.ReadFile(path)
	if err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(want)), "\n") {
			if !strings.Contains(got, line+"\n") {
				t.Errorf("shipped migration changed or removed: %s — write a new migration instead", line)
			}
		}
		if t.Failed() {
			t.FailNow() // even with -update: the pinned checksums are not rewritten
		}
	}
	golden.Assert(t, path, []byte(got))
}

// startHolder starts this test binary as a separate process holding the raw
// store's write lock; closing the returned stdin ends it.
func startHolder(t *testing.T, dir string) (*exec.Cmd, func()) {
	return startProcess(t, "CRA_TEST_HOLD_STORE="+dir)
}

// startReader starts this test binary as a separate process with both
// stores open read-only, as `cra sql` has them; closing stdin ends it.
func startReader(t *testing.T, dir string) (*exec.Cmd, func()) {
	return startProcess(t, "CRA_TEST_HOLD_READ="+dir)
}

func startProcess(t *testing.T, env string) (*exec.Cmd, func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if strings.TrimSpace(line) != "ready" {
		t.Fatalf("holder did not start: %q", line)
	}
	return cmd, func() { stdin.Close(); _ = cmd.Wait() }
}

func TestSecondWriterIsRefusedNamingTheHolder(t *testing.T) {
	t.Parallel()
	dir := initHome(t)
	cmd, stop := startHolder(t, dir)
	defer stop()

	wantHolder := func(name string, err error) {
		t.Helper()
		var le *LockedError
		if !errors.As(err, &le) {
			t.Fatalf("%s: got %v, want a LockedError", name, err)
		}
		if le.PID != cmd.Process.Pid || le.Command != "cra bootstrap" {
			t.Errorf("%s: holder = pid %d %q, want pid %d \"cra bootstrap\"", name, le.PID, le.Command, cmd.Process.Pid)
		}
		want := fmt.Sprintf("another cra process (pid %d, cra bootstrap", cmd.Process.Pid)
		if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "raw.duckdb") {
			t.Errorf("%s: message %q lacks %q", name, err, want)
		}
	}
	_, err := Open(context.Background(), dir, Raw, Options{Write: true, Command: "cra index"})
	wantHolder("write", err)
	_, err = Attach(context.Background(), dir, true, "cra sql --write")
	wantHolder("attach --write", err)
	// A reader is refused by DuckDB's own lock; we still name the holder.
	_, err = Open(context.Background(), dir, Raw, Options{})
	wantHolder("read", err)

	// The curated store is not held: writing it works meanwhile.
	s, err := Open(context.Background(), dir, Curated, Options{Write: true, Command: "cra index"})
	if err != nil {
		t.Fatalf("curated should be free: %v", err)
	}
	s.Close()
}

func TestKilledWriterLeavesNoLock(t *testing.T) {
	t.Parallel()
	dir := initHome(t)
	cmd, stop := startHolder(t, dir)
	defer stop()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s, err := Open(context.Background(), dir, Raw, Options{Write: true, Command: "cra bootstrap"})
		if err == nil {
			s.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("store still locked after the holder was killed: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestOpenWaitsForAHeldStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := initHome(t)
	held, err := Open(ctx, dir, Raw, Options{Write: true, Command: "holder"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := Open(ctx, dir, Raw, Options{Write: true, Wait: 200 * time.Millisecond}); !errors.As(err, new(*LockedError)) || time.Since(start) < 200*time.Millisecond {
		t.Fatalf("after %v: %v; want a LockedError once the wait is over", time.Since(start), err)
	}
	time.AfterFunc(150*time.Millisecond, func() { held.Close() })
	s, err := Open(ctx, dir, Raw, Options{Write: true, Wait: 5 * time.Second})
	if err != nil {
		t.Fatalf("the store was released, yet: %v", err)
	}
	s.Close()
}
