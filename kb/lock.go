package kb

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// LockedError says another process writes the store, and who it is.
type LockedError struct {
	Store   string // file name, e.g. raw.duckdb
	PID     int
	Command string
	Since   time.Time
}

func (e *LockedError) Error() string {
	who := "another process"
	if e.PID != 0 {
		who = fmt.Sprintf("another cra process (pid %d, %s", e.PID, e.Command)
		if !e.Since.IsZero() {
			who += ", since " + e.Since.Format(time.RFC3339)
		}
		who += ")"
	}
	return fmt.Sprintf("%s holds %s for writing: wait for it to finish, or stop it, then run again", who, e.Store)
}

// lockNote is written into the lock file so a refused writer can name the holder.
type lockNote struct {
	PID     int       `json:"pid"`
	Command string    `json:"command"`
	Since   time.Time `json:"since"`
}

// writeLock is an exclusive flock on "<store>.lock" beside the store. The
// kernel drops it when the process dies, even by kill -9, so a crash never
// leaves the store locked; the note inside is only a description.
type writeLock struct{ f *os.File }

func lockPath(store string) string { return store + ".lock" }

func acquireWriteLock(store, command string) (*writeLock, error) {
	f, err := os.OpenFile(lockPath(store), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", store, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, holder(store)
		}
		return nil, fmt.Errorf("lock %s: %w", store, err)
	}
	note, _ := json.Marshal(lockNote{PID: os.Getpid(), Command: command, Since: time.Now().UTC().Truncate(time.Second)})
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt(append(note, '\n'), 0)
	}
	return &writeLock{f: f}, nil
}

// holder reads the lock note of store into a LockedError.
func holder(store string) *LockedError {
	e := &LockedError{Store: filepath.Base(store)}
	data, err := os.ReadFile(lockPath(store))
	var note lockNote
	if err == nil && json.Unmarshal(data, &note) == nil {
		e.PID, e.Command, e.Since = note.PID, note.Command, note.Since
	}
	return e
}

func (l *writeLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	// Leave the file: removing it would race with a writer that just opened it.
	_ = l.f.Truncate(0)
	err := l.f.Close() // closing drops the flock
	l.f = nil
	return err
}

// translateOpenError turns DuckDB's raw file-lock refusal into a LockedError
// naming the holder (a cra writer, or some other program such as the duckdb CLI).
func translateOpenError(store string, err error) error {
	if err != nil && strings.Contains(err.Error(), "Could not set lock on file") {
		e := holder(store)
		if e.PID == 0 || !writerAlive(store) {
			return fmt.Errorf("%s is open in another program (%v): close it and run again", filepath.Base(store), firstLine(err.Error()))
		}
		return e
	}
	return err
}

// writerAlive reports whether a cra writer holds the flock of store now
// (the note alone may be stale after a crash).
func writerAlive(store string) bool {
	f, err := os.Open(lockPath(store))
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return true
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
