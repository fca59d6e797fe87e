// Package storetest holds test helpers over real stores and processes:
// a fresh home, a query's rows as text, a comparison of table dumps, and a
// child process killed with SIGKILL mid-run. Tests only; it never fakes a
// store.
package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cra-dev/cra/kb"
)

// homeTemplate is a home as kb.Init leaves it, made once per test binary.
var homeTemplate = NewTemplate(func(dir string) error { return kb.Init(context.Background(), dir, "test") })

// Home returns a new initialised home directory in t.TempDir(): a copy of
// one kb.Init made, byte for byte (the tests of Init itself call it).

// lockWait is how long a fixture waits for a store's lock. Tests run in
// parallel, and a child process another test forks (git, a test binary)
// while this process holds a store's lock keeps the flock until it execs,
// so a lock released a moment ago can still look held.
const lockWait = 10 * time.Second

func Home(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	HomeAt(t, dir)
	return dir
}

// HomeAt makes dir (created if missing) an initialised home: the copy
// Home makes, at a path of the test's choosing.
func HomeAt(t testing.TB, dir string) {
	t.Helper()
	homeTemplate.Copy(t, dir)
}

// Rows returns a query's rows over one store of home, read-only, as
// tab-separated lines.
func Rows(t testing.TB, home string, kind kb.Kind, q string, args ...any) []string {
	t.Helper()
	s, err := kb.Open(context.Background(), home, kind, kb.Options{Wait: lockWait})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	return RowsOf(t, s.DB, q, args...)
}

// Dump returns each query's rows (by name) over one store of home, opened
// once, read-only, each query's lines sorted: a table dump to compare
// with SameRows.
func Dump(t testing.TB, home string, kind kb.Kind, queries map[string]string) map[string][]string {
	t.Helper()
	s, err := kb.Open(context.Background(), home, kind, kb.Options{Wait: lockWait})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out := make(map[string][]string, len(queries))
	for name, q := range queries {
		rows := RowsOf(t, s.DB, q)
		slices.Sort(rows)
		out[name] = rows
	}
	return out
}

// Exec runs statements on one store of home, opened for writing.
func Exec(t testing.TB, home string, kind kb.Kind, q string, args ...any) {
	t.Helper()
	if err := kb.WithWriter(context.Background(), home, kind, kb.Options{Command: "test", Wait: lockWait}, func(w kb.Writer) error {
		_, err := w.Conn.ExecContext(context.Background(), q, args...)
		return err
	}); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// Querier is a *sql.DB or a *sql.Conn (a session with stores attached).
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// RowsOf returns a query's rows as tab-separated lines (fmt.Sprint of each
// value).
func RowsOf(t testing.TB, db Querier, q string, args ...any) []string {
	t.Helper()
	_, rows := scan(t, db, q, args...)
	out := []string{}
	for _, vals := range rows {
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = fmt.Sprint(v)
		}
		out = append(out, strings.Join(parts, "\t"))
	}
	return out
}

// MapsOf returns a query's rows as maps from column name to the value the
// driver scanned.
func MapsOf(t testing.TB, db Querier, q string, args ...any) []map[string]any {
	t.Helper()
	cols, rows := scan(t, db, q, args...)
	var out []map[string]any
	for _, vals := range rows {
		row := make(map[string]any, len(cols))
		for i, c := range cols {
			row[c] = vals[i]
		}
		out = append(out, row)
	}
	return out
}

// scan runs q and returns its column names and every row's values.
func scan(t testing.TB, db Querier, q string, args ...any) ([]string, [][]any) {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return cols, out
}

// SameRows reports each table whose rows differ from want, with the first
// differing row.
func SameRows(t testing.TB, got, want map[string][]string) {
	t.Helper()
	for table, w := range want {
		g := got[table]
		if strings.Join(g, "\n") == strings.Join(w, "\n") {
			continue
		}
		t.Errorf("%s: %d rows, want %d", table, len(g), len(w))
		for i := 0; i < max(len(g), len(w)); i++ {
			var gi, wi string
			if i < len(g) {
				gi = g[i]
			}
			if i < len(w) {
				wi = w[i]
			}
			if gi != wi {
				t.Errorf("%s: first difference at row %d:\n got  %.400q\n want %.400q", table, i, gi, wi)
				break
			}
		}
	}
}

// KillAfter re-runs the test binary with env added (its TestMain is to do
// the work when it sees env) and kills it with SIGKILL after the given
// time. It reports whether the child was killed mid-run rather than done.
func KillAfter(t testing.TB, env []string, after time.Duration) bool {
	t.Helper()
	return KillWhen(t, env, func() bool { return true }, after)
}

// KillWhen is KillAfter from the moment ready holds (polled every
// millisecond while the child runs): a kill at a point of the child's
// work seen from outside, such as its first commit in a store's
// write-ahead log. A child that ends before ready holds is not killed.
func KillWhen(t testing.TB, env []string, ready func() bool, after time.Duration) bool {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait() //nolint:errcheck // how it ended is read below
		close(exited)
	}()
	start := time.Now()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !ready() {
		select {
		case <-exited:
			t.Logf("the child finished after %v, before the point to kill it at (%v)", time.Since(start), cmd.ProcessState)
			return false
		case <-tick.C:
		}
	}
	select {
	case <-exited:
	case <-time.After(after):
		cmd.Process.Signal(syscall.SIGKILL) //nolint:errcheck // reported below
		<-exited
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return true
	}
	t.Logf("the child finished before the kill, %v after it started (%v)", time.Since(start), cmd.ProcessState)
	return false
}

// ResetPeakRSS resets the kernel's high-water mark of this process's
// resident memory (Linux; a no-op elsewhere), so a benchmark measures its
// own phase, not the set-up before it.
func ResetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// PeakRSS is the resident-memory high-water mark in bytes, Go heap and C
// memory (DuckDB, tree-sitter) alike; 0 where /proc is missing.
func PeakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
