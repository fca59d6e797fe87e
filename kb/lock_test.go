package kb

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A writer refused because a reader (`cra sql`) has the store open names
// that reader, never itself.
func TestWriterRefusedByAReaderNamesTheReader(t *testing.T) {
	t.Parallel()
	dir := initHome(t)
	reader, stop := startReader(t, dir)
	defer stop()
	for _, kind := range Kinds {
		_, err := Open(context.Background(), dir, kind, Options{Write: true, Command: "cra index"})
		var le *LockedError
		if !errors.As(err, &le) {
			t.Fatalf("%s: got %v, want a LockedError", kind, err)
		}
		if le.PID != reader.Process.Pid || le.Command != "cra sql" || !le.Reading {
			t.Errorf("%s: holder pid %d %q reading=%v; want the reader, pid %d \"cra sql\"", kind, le.PID, le.Command, le.Reading, reader.Process.Pid)
		}
		if strings.Contains(err.Error(), fmt.Sprintf("pid %d,", os.Getpid())) {
			t.Errorf("%s: %q blames this very process", kind, err)
		}
		if !strings.Contains(err.Error(), "open for reading") {
			t.Errorf("%s: %q does not say the holder is reading", kind, err)
		}
	}
}

// A writer with a wait waits for the reader, saying once what it waits for,
// and gets the store when the reader leaves.
func TestWriterWaitsForAReaderAndSaysSoOnce(t *testing.T) {
	t.Parallel()
	dir := initHome(t)
	reader, stop := startReader(t, dir)
	time.AfterFunc(700*time.Millisecond, stop)
	var told []error
	s, err := Open(context.Background(), dir, Raw, Options{Write: true, Command: "cra bootstrap", Wait: 30 * time.Second,
		Waiting: func(holder error) { told = append(told, holder) }})
	if err != nil {
		t.Fatalf("the reader left, yet: %v", err)
	}
	s.Close()
	if len(told) != 1 || !strings.Contains(told[0].Error(), fmt.Sprintf("pid %d, cra sql", reader.Process.Pid)) {
		t.Errorf("told %v; want one message naming the reader pid %d", told, reader.Process.Pid)
	}
}

// A reader that died leaves a note that the next writer cleans up.
func TestStaleReaderNoteIsIgnored(t *testing.T) {
	t.Parallel()
	dir := initHome(t)
	path := readerPath(dir+"/raw.duckdb", 999999)
	if err := os.WriteFile(path, []byte(`{"pid":999999,"command":"cra sql"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if rs := readers(dir + "/raw.duckdb"); len(rs) != 0 {
		t.Errorf("a dead reader's note counted as live: %v", rs)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale note left behind: %v", err)
	}
}

func TestInputLockIsExclusiveAndNamesTheHolder(t *testing.T) {
	t.Parallel()
	dir := initHome(t)
	ctx := context.Background()
	first, err := LockInput(ctx, dir, "bootstrap", "/clones/click", "cra bootstrap /clones/click", 0)
	if err != nil {
		t.Fatal(err)
	}
	other, err := LockInput(ctx, dir, "bootstrap", "/clones/cobra", "cra bootstrap", 0)
	if err != nil {
		t.Fatalf("another input must be free: %v", err)
	}
	other.Release()
	if _, err := LockInput(ctx, dir, "index", "/clones/click", "cra index", 0); err != nil {
		t.Fatalf("another batch kind on the same input must be free: %v", err)
	}

	start := time.Now()
	_, err = LockInput(ctx, dir, "bootstrap", "/clones/click", "cra bootstrap", 150*time.Millisecond)
	var busy *BusyError
	if !errors.As(err, &busy) || time.Since(start) < 150*time.Millisecond {
		t.Fatalf("after %v: %v; want a BusyError after the wait", time.Since(start), err)
	}
	if busy.PID != os.Getpid() || busy.Command != "cra bootstrap /clones/click" || !strings.Contains(err.Error(), "/clones/click") {
		t.Errorf("busy = %+v (%v); want the holder's pid and command", busy, err)
	}

	time.AfterFunc(100*time.Millisecond, func() { first.Release() })
	l, err := LockInput(ctx, dir, "bootstrap", "/clones/click", "cra bootstrap", 10*time.Second)
	if err != nil {
		t.Fatalf("released, yet: %v", err)
	}
	l.Release()
}

func TestRunLockTellsLiveFromStale(t *testing.T) {
	t.Parallel()
	dir := initHome(t)
	l, err := LockRun(dir, "bootstrap", 7)
	if err != nil {
		t.Fatal(err)
	}
	if !RunLive(dir, "bootstrap", 7) {
		t.Error("a held run lock reads as not live")
	}
	if RunLive(dir, "bootstrap", 8) {
		t.Error("a run nobody holds reads as live")
	}
	l.Release()
	if RunLive(dir, "bootstrap", 7) {
		t.Error("a released run lock reads as live")
	}
	if entries, _ := os.ReadDir(LocksDir(dir)); len(entries) != 0 {
		t.Errorf("run locks left files behind: %v", entries)
	}
}

// AppendNew writes only rows whose key is new, to the table and within the
// batch: the anti-join every raw load goes through.
func TestAppendNewAntiJoinsOnTheKey(t *testing.T) {
	t.Parallel()
	dir := initHome(t)
	ctx := context.Background()
	cols := []string{"run_id", "repo_path", "commit", "parents", "committed_at", "files", "insertions", "deletions", "outcome"}
	row := func(commit string) []driver.Value {
		return []driver.Value{int64(1), "/r", commit, []string{}, time.Unix(0, 0), []string{}, 0, 0, "merge"}
	}
	appendRows := func(rows ...[]driver.Value) int {
		var n int
		err := WithWriter(ctx, dir, Raw, Options{Command: "test"}, func(w Writer) error {
			return w.Tx(ctx, func() (err error) {
				n, err = w.AppendNew(ctx, "bootstrap_commits", cols, []string{"repo_path", "commit"}, rows)
				return err
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := appendRows(row("a"), row("b"), row("a")); n != 2 {
		t.Errorf("first load appended %d rows, want 2 (a repeated within the batch)", n)
	}
	if n := appendRows(row("b"), row("c")); n != 1 {
		t.Errorf("second load appended %d rows, want 1 (b is stored already)", n)
	}
	s, err := Open(ctx, dir, Raw, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var total, distinct int
	if err := s.DB.QueryRow("SELECT count(*), count(DISTINCT commit) FROM bootstrap_commits").Scan(&total, &distinct); err != nil {
		t.Fatal(err)
	}
	if total != 3 || distinct != 3 {
		t.Errorf("%d rows for %d commits; want 3 and 3", total, distinct)
	}
}

// A key with an integer column (a dataset's version) anti-joins as well:
// the same id under the same version is skipped, under another version
// written.
func TestAppendNewWithAnIntegerKeyColumn(t *testing.T) {
	t.Parallel()
	dir := initHome(t)
	ctx := context.Background()
	ex := func(id string, version int) TrainingExample {
		return TrainingExample{ID: id, Dataset: "d", Version: version, Stage: "scope", Source: "logged", Split: SplitTrain,
			Kind: KindSFT, Label: LabelPositive, RepoPath: "/r", TargetID: id, Messages: []Message{{Role: "user", Content: "q"}},
			Evidence: `{"run": "r1"}`, CreatedAt: time.Unix(0, 0)}
	}
	load := func(rows ...TrainingExample) {
		if err := WithWriter(ctx, dir, Raw, Options{Command: "test"}, func(w Writer) error {
			return w.Tx(ctx, func() error { return StageTrainingExamples(ctx, w, rows) })
		}); err != nil {
			t.Fatal(err)
		}
	}
	load(ex("a", 1), ex("b", 1))
	load(ex("a", 1), ex("a", 2), ex("c", 1))
	s, err := Open(ctx, dir, Raw, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var rows string
	if err := s.DB.QueryRow(`SELECT string_agg(id || version || ':' || (evidence->>'run'), ' ' ORDER BY id, version) FROM training_examples_staging`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != "a1:r1 a2:r1 b1:r1 c1:r1" {
		t.Errorf("rows %q, want a1 a2 b1 c1 once each, evidence a JSON document", rows)
	}
}

// A lock released a moment ago is taken, not reported busy: a child
// forked while its parent held the lock keeps the flock until it execs,
// here played by a second open file holding it for 15 ms.
func TestLockJustReleasedIsNotBusy(t *testing.T) {
	t.Parallel()
	path := t.TempDir() + "/x.lock"
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(15*time.Millisecond, func() { f.Close() })
	l, _, busy, err := tryLock(path, "test")
	if err != nil || busy {
		t.Fatalf("tryLock of a lock released after 15 ms: busy %v, %v", busy, err)
	}
	if err := l.release(); err != nil {
		t.Fatal(err)
	}

	// Held for good, it is busy once lockSettle has passed.
	g, _ := os.OpenFile(path, os.O_RDWR, 0o644)
	defer g.Close()
	if err := syscall.Flock(int(g.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, _, busy, err := tryLock(path, "test"); err != nil || !busy {
		t.Fatalf("tryLock of a held lock: busy %v, %v", busy, err)
	}
	if d := time.Since(start); d < lockSettle {
		t.Errorf("busy after %v, before lockSettle (%v)", d, lockSettle)
	}
}
