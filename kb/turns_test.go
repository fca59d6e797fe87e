package kb

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// A writer that finds a reader in the store keeps its turn while it waits:
// a reader arriving meanwhile queues behind it (told who it waits for)
// instead of slipping in, so a stream of readers cannot starve a writer.
// The writer gets the store once the first reader leaves; the queued
// reader gets it once the writer has written.
func TestAWaitingWriterGoesBeforeNewReaders(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := initHome(t)
	_, stop := startReader(t, dir)
	type opened struct {
		s   *Store
		err error
	}
	waiting, got := make(chan struct{}), make(chan opened, 1)
	go func() {
		s, err := Open(ctx, dir, Raw, Options{Write: true, Command: "cra bootstrap", Wait: time.Minute,
			Waiting: func(error) { close(waiting) }})
		got <- opened{s, err}
	}()
	select {
	case <-waiting:
	case o := <-got:
		t.Fatalf("the writer did not wait for the reader: %v", o.err)
	}
	time.Sleep(100 * time.Millisecond) // the writer between two attempts
	writer := fmt.Sprintf("pid %d, cra bootstrap", os.Getpid())
	if out := readOnce(t, dir); !strings.Contains(out, writer) {
		t.Errorf("a reader arriving while the writer waits: %q; want it refused, naming the writer (%s)", out, writer)
	}
	queued := make(chan error, 1)
	go func() {
		a, err := AttachWith(ctx, dir, Options{Command: "cra sql", Wait: time.Minute})
		if err == nil {
			err = a.Close()
		}
		queued <- err
	}()
	stop()
	o := <-got
	if o.err != nil {
		t.Fatalf("the reader left, yet the writer: %v", o.err)
	}
	select {
	case err := <-queued:
		t.Fatalf("the queued reader got in before the writer was done (%v)", err)
	case <-time.After(200 * time.Millisecond):
	}
	if _, err := o.s.DB.ExecContext(ctx, `INSERT INTO eval_commit_judgements VALUES ('r', 'c', 't', 'tests', 'fail_to_pass', [], [], [], 0, 0, 0, '', '', now())`); err != nil {
		t.Fatal(err)
	}
	o.s.Close()
	if err := <-queued; err != nil {
		t.Errorf("the queued reader, once the writer was done: %v", err)
	}
}
