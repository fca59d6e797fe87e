package kb

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// How readers and writers take turns on a store. DuckDB lets one process
// write a file, or several read it, never both; cra's writers hold a store
// only for a burst of writes (WithWriter, Lease) and its readers (cra sql,
// cra status) only for their queries, so each waits for the other's next
// idle moment instead of failing:
//   - a writer's turn is its write lock, <store>.lock, held from before it
//     opens the file until after it closes it — and, when it finds readers
//     in the file, held while it waits for them to finish, so that readers
//     arriving meanwhile queue behind it and cannot starve it;
//   - a reader's turn is a shared flock on the same file, held only while
//     it attaches: no cra writer is in the file then, and a reader that
//     finds a writer's turn waits on that flock, waking when the burst ends.

// ReadWait is how long cra sql and cra status wait by default for a store
// another process writes: as long as a batch waits for one.
const ReadWait = BatchWait

// readTurn takes a reader's turn on store without blocking: a
// *LockedError names the writer whose turn it is. nil, nil when the lock
// file cannot be opened (no writer ever made it, or a home read-only to
// this user): nothing to take turns with.
func readTurn(store string) (*os.File, error) {
	f, err := os.Open(lockPath(store))
	if err != nil {
		return nil, nil
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		f.Close()
		signalWant(store)
		note, _ := readNote(lockPath(store))
		return nil, &LockedError{Store: filepath.Base(store), PID: note.PID, Command: note.Command, Since: note.Since}
	}
	return f, nil
}

// awaitWriter blocks until no writer holds store's write lock, ctx ends
// or until passes. The flock it waits on is dropped at once (the caller
// takes its turn anew); if it gives up first, a goroutine stays blocked
// until the writer lets go, then drops it.
func awaitWriter(ctx context.Context, store string, until time.Time) {
	f, err := os.Open(lockPath(store))
	if err != nil {
		return
	}
	free := make(chan struct{})
	go func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_SH) //nolint:errcheck // an error means no lock to wait for
		f.Close()                                   // drops the flock
		close(free)
	}()
	timer := time.NewTimer(time.Until(until))
	defer timer.Stop()
	select {
	case <-free:
	case <-ctx.Done():
	case <-timer.C:
	}
}

// openMigratedWaiting is openMigrated retried while readers or another
// program have the file open, until until (the zero time: not at all),
// telling tell (if set) what it waits for. The caller holds the write
// lock throughout, which keeps new cra readers out meanwhile.
func openMigratedWaiting(ctx context.Context, path string, kind Kind, until time.Time, tell func(error)) (*sql.DB, error) {
	backoff := 50 * time.Millisecond
	for {
		db, err := openMigrated(ctx, path, kind)
		if err == nil || !Held(err) || !time.Now().Before(until) {
			return db, err
		}
		if tell != nil {
			tell(err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(min(backoff, time.Until(until))):
		}
		backoff = min(2*backoff, time.Second)
	}
}

// readerOpenError names who refused a reader holding its turns: no cra
// writer is in the file then, so only another program can be.
func readerOpenError(store string, err error) error {
	if err == nil || !strings.Contains(err.Error(), "Could not set lock on file") {
		return err
	}
	return &OtherProgramError{Store: filepath.Base(store), Detail: firstLine(err.Error())}
}

// attachWaiting retries attach while another process holds a store, for
// at most opts.Wait, saying once (opts.Waiting) what it waits for. It
// holds nothing while it waits: a writer's turn is waited for on its
// lock, anything else (readers in the way of a writer, another program)
// with a backoff from 50 ms to 1 s.
func attachWaiting(ctx context.Context, dir string, opts Options) (*Attached, error) {
	deadline := time.Now().Add(opts.Wait)
	told := false
	tell := func(holder error) {
		if !told && opts.Waiting != nil {
			opts.Waiting(holder)
			told = true
		}
	}
	backoff := 50 * time.Millisecond
	for {
		a, err := attach(ctx, dir, opts, deadline, tell)
		if err == nil || !Held(err) || !time.Now().Before(deadline) {
			return a, err
		}
		tell(err)
		var locked *LockedError
		if errors.As(err, &locked) && !locked.Reading {
			awaitWriter(ctx, filepath.Join(dir, locked.Store), deadline)
		} else {
			select {
			case <-ctx.Done():
			case <-time.After(min(backoff, time.Until(deadline))):
			}
			backoff = min(2*backoff, time.Second)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
}
