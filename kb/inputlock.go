package kb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// InputLock holds one input of a batch — a repository for index, bootstrap
// or enrich, a dataset name for curate-data — for a whole run, so two runs
// never do the same work at once. It is an flock under the home's locks/
// folder: the kernel drops it when the process dies, even by kill -9.
type InputLock struct{ l *fileLock }

// BusyError says another process runs the same batch on the same input.
type BusyError struct {
	Batch, Input string
	PID          int
	Command      string
	Since        time.Time
}

func (e *BusyError) Error() string {
	who := "another process"
	if e.PID != 0 {
		who = (&LockedError{PID: e.PID, Command: e.Command, Since: e.Since}).holder()
	}
	return fmt.Sprintf("%s is working on %s (cra %s): skipped; run again later, or pass --wait", who, e.Input, e.Batch)
}

// LocksDir is the folder of input locks in home dir.
func LocksDir(dir string) string { return filepath.Join(dir, "locks") }

// makeLocksDir creates the locks folder of an initialised home; a home
// cra init did not make gets a NotInitializedError and stays as it was.
func makeLocksDir(dir string) error {
	if err := CheckInitialized(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(LocksDir(dir), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", LocksDir(dir), err)
	}
	return nil
}

func inputLockPath(dir, batch, input string) string {
	sum := sha256.Sum256([]byte(input))
	return filepath.Join(LocksDir(dir), batch+"-"+hex.EncodeToString(sum[:8])+".lock")
}

// LockInput takes the lock of input for the batch kind (e.g. "bootstrap")
// in home dir, waiting up to wait (0: not at all) for another process to
// release it. command describes this process in the lock's note. A lock
// still held after the wait gives a *BusyError naming the holder.
func LockInput(ctx context.Context, dir, batch, input, command string, wait time.Duration) (*InputLock, error) {
	if err := makeLocksDir(dir); err != nil {
		return nil, err
	}
	path := inputLockPath(dir, batch, input)
	backoff, deadline := 50*time.Millisecond, time.Now().Add(wait)
	for {
		l, note, busy, err := tryLock(path, command)
		if err != nil {
			return nil, err
		}
		if !busy {
			return &InputLock{l: l}, nil
		}
		if !time.Now().Before(deadline) {
			return nil, &BusyError{Batch: batch, Input: input, PID: note.PID, Command: note.Command, Since: note.Since}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(min(backoff, time.Until(deadline))):
		}
		backoff = min(2*backoff, time.Second)
	}
}

// Release lets another run take the input.
func (l *InputLock) Release() error {
	if l == nil {
		return nil
	}
	return l.l.release()
}

// LockRun marks run id of a batch kind as live for as long as this process
// holds it; RunLive tells another process whether it still is. A run row
// left "running" by a killed process is then known to be stale.
func LockRun(dir, batch string, id int64) (*InputLock, error) {
	if err := makeLocksDir(dir); err != nil {
		return nil, err
	}
	l, _, busy, err := tryLock(runLockPath(dir, batch, id), fmt.Sprintf("%s run %d", batch, id))
	if busy {
		return nil, fmt.Errorf("run %d of %s is already live", id, batch)
	}
	if err != nil {
		return nil, err
	}
	l.remove = true
	return &InputLock{l: l}, nil
}

// RunLive reports whether the process of run id still holds its lock.
func RunLive(dir, batch string, id int64) bool {
	l, _, busy, err := tryLock(runLockPath(dir, batch, id), "")
	if err != nil {
		return false
	}
	if !busy {
		l.remove = true
		l.release() //nolint:errcheck // only probing
	}
	return busy
}

func runLockPath(dir, batch string, id int64) string {
	return filepath.Join(LocksDir(dir), fmt.Sprintf("%s-run-%d.lock", batch, id))
}
