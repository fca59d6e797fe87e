package kb

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// readOnce runs a real reader process (what `cra sql` does) against home
// and returns what it printed.
func readOnce(t *testing.T, home string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CRA_TEST_READ_ONCE="+home)
	out, _ := cmd.CombinedOutput()
	return strings.TrimSpace(string(out))
}

// A burst of writes opens the store once and holds it: a reader process
// meanwhile is told who holds it. Once the lease has been idle, it is
// closed: a reader gets in and sees every row, and the next write opens
// the store again.
func TestLeaseHoldsTheStoreAcrossABurstAndLetsGoWhenIdle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	home := initHome(t)
	l := NewLease(home, Raw, Options{Command: "cra eval"}, 300*time.Millisecond)
	defer l.Close()
	insert := func(w Writer) error {
		return w.Tx(ctx, func() error {
			_, err := w.Conn.ExecContext(ctx, `INSERT INTO eval_commit_judgements VALUES ('r', 'c', 't', 'tests', 'fail_to_pass', [], [], [], 0, 0, 0, '', '', now())`)
			return err
		})
	}
	for range 10 {
		if err := l.Write(ctx, insert); err != nil {
			t.Fatal(err)
		}
	}
	if l.opens != 1 {
		t.Errorf("ten writes in a burst opened the store %d times", l.opens)
	}
	// Held between writes (the reader's start takes longer than idle, so
	// write while it starts).
	held := make(chan string)
	go func() { held <- readOnce(t, home) }()
	stop := time.After(2 * time.Second)
	var got string
loop:
	for {
		select {
		case got = <-held:
			break loop
		case <-stop:
			t.Fatal("the reader never finished")
		case <-time.After(50 * time.Millisecond):
			if err := l.Write(ctx, insert); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !strings.Contains(got, "cra eval") {
		t.Errorf("a reader while the lease is busy: %q, want an error naming cra eval", got)
	}
	var n int
	if err := l.Write(ctx, func(w Writer) error {
		return w.Conn.QueryRowContext(ctx, "SELECT count(*) FROM eval_commit_judgements").Scan(&n)
	}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(600 * time.Millisecond)
	if got := readOnce(t, home); got != fmt.Sprintf("rows: %d <nil>", n) {
		t.Errorf("a reader after the lease went idle: %q, want the %d rows", got, n)
	}
	opens := l.opens
	if err := l.Write(ctx, insert); err != nil || l.opens != opens+1 {
		t.Errorf("a write after the idle close: %v, opens %d → %d", err, opens, l.opens)
	}
}

// Writes further apart than idle reuse the open store while no one else
// wants it; a reader refused meanwhile says it wants the store, and the
// lease lets go within idle, so the reader's next try gets in; with no
// one wanting it, the lease lets go once hold has passed.
func TestLeaseHoldsUntilSomeoneWantsTheStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	home := initHome(t)
	const idle = 50 * time.Millisecond
	l := NewLease(home, Raw, Options{Command: "cra eval"}, idle)
	defer l.Close()
	insert := func(w Writer) error {
		_, err := w.Conn.ExecContext(ctx, `INSERT INTO eval_commit_judgements VALUES ('r', 'c', 't', 'tests', 'fail_to_pass', [], [], [], 0, 0, 0, '', '', now())`)
		return err
	}
	for range 3 {
		if err := l.Write(ctx, insert); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * idle)
	}
	if l.opens != 1 {
		t.Errorf("writes %v apart that no one waited between opened the store %d times, want 1", 3*idle, l.opens)
	}
	if got := readOnce(t, home); !strings.Contains(got, "cra eval") {
		t.Fatalf("a reader while the lease holds the store: %q, want an error naming cra eval", got)
	}
	time.Sleep(3 * idle)
	if got := readOnce(t, home); got != "rows: 3 <nil>" {
		t.Errorf("a reader after it said it wants the store: %q, want the 3 rows", got)
	}

	if err := l.Write(ctx, insert); err != nil || l.opens != 2 {
		t.Fatalf("a write after the lease let go: %v, opens %d, want 2", err, l.opens)
	}
	time.Sleep(DefaultHold + 3*idle)
	if got := readOnce(t, home); got != "rows: 4 <nil>" {
		t.Errorf("a reader once the hold had passed: %q, want the 4 rows", got)
	}
}

// A second writer process waiting for the store (an overlapping cron
// batch) gets in as soon as the lease sees its note, long before the
// lease's hold would end; the lease's next write opens the store again
// and sees the other process's row.
func TestLeaseLetsAWaitingWriterProcessIn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	home := initHome(t)
	l := NewLease(home, Raw, Options{Command: "cra eval"}, 50*time.Millisecond)
	l.hold = time.Minute // without the note, the writer would wait it out
	defer l.Close()
	count := func(n *int) func(Writer) error {
		return func(w Writer) error {
			return w.Conn.QueryRowContext(ctx, "SELECT count(*) FROM eval_commit_judgements WHERE repo_path = 'other'").Scan(n)
		}
	}
	var n int
	if err := l.Write(ctx, count(&n)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CRA_TEST_WRITE_ONCE="+home)
	out, _ := cmd.CombinedOutput()
	took := time.Since(start)
	if got := strings.TrimSpace(string(out)); got != "wrote: <nil>" || took > 20*time.Second {
		t.Fatalf("the second writer: %q after %v, want it in before the lease's minute of hold", got, took)
	}
	if err := l.Write(ctx, count(&n)); err != nil || n != 1 || l.opens != 2 {
		t.Errorf("the lease's next write: %v, %d rows of the other process, opens %d; want 1 row, 2 opens", err, n, l.opens)
	}
}
