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

// LockedError says another process holds the store, and who it is: a cra
// writer, or a cra reader (`cra sql`) DuckDB will not share the file with.
type LockedError struct {
	Store   string // file name, e.g. raw.duckdb
	PID     int
	Command string
	Since   time.Time
	Reading bool // the holder has the store open read-only
}

func (e *LockedError) Error() string {
	if e.PID == 0 {
		return fmt.Sprintf("another process holds %s for writing: wait for it to finish, or stop it, then run again", e.Store)
	}
	how := "for writing"
	if e.Reading {
		how = "open for reading"
	}
	return fmt.Sprintf("%s holds %s %s: wait for it to finish, or stop it, then run again", e.holder(), e.Store, how)
}

func (e *LockedError) holder() string {
	s := fmt.Sprintf("another cra process (pid %d", e.PID)
	if e.Command != "" { // a reader that did not say what it runs
		s += ", " + e.Command
	}
	if !e.Since.IsZero() {
		s += ", since " + e.Since.Format(time.RFC3339)
	}
	return s + ")"
}

// lockNote is written into a lock file so a refused process can name the holder.
type lockNote struct {
	PID     int       `json:"pid"`
	Command string    `json:"command"`
	Since   time.Time `json:"since"`
}

// fileLock is an exclusive flock on a file whose content is a lockNote. The
// kernel drops it when the process dies, even by kill -9, so a crash never
// leaves anything locked; the note inside is only a description.
type fileLock struct {
	f      *os.File
	remove bool // remove the file on release (a file no one else opens to wait on)
}

// tryLock takes the flock of path without blocking. busy is true (and the
// lock nil) when another process holds it; its note then says who.
func tryLock(path, command string) (l *fileLock, holder lockNote, busy bool, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, lockNote{}, false, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := flockSettled(f); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			note, _ := readNote(path)
			return nil, note, true, nil
		}
		return nil, lockNote{}, false, fmt.Errorf("lock %s: %w", path, err)
	}
	note, _ := json.Marshal(lockNote{PID: os.Getpid(), Command: command, Since: time.Now().UTC().Truncate(time.Second)})
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt(append(note, '\n'), 0)
	}
	return &fileLock{f: f}, lockNote{}, false, nil
}

// lockSettle is how long a lock that looks held is tried again before it
// counts as busy. A child process forked while its parent held the lock
// (every cra run starts git) holds the flock too until it execs, so for a
// few milliseconds after the parent releases it the lock looks held by no
// one alive; a --wait 0 run would call its input busy.
const lockSettle = 50 * time.Millisecond

// flockSettled takes f's flock without blocking, trying again for
// lockSettle while it is held.
func flockSettled(f *os.File) error {
	deadline := time.Now().Add(lockSettle)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func readNote(path string) (lockNote, error) {
	var note lockNote
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, &note)
	}
	return note, err
}

func (l *fileLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	if l.remove {
		// Removed while still locked, so a waiter never takes a lock on an
		// unlinked file that a newcomer cannot see.
		_ = os.Remove(l.f.Name())
	} else {
		// Left in place: removing it would race with a writer that just
		// opened it to wait on it.
		_ = l.f.Truncate(0)
	}
	err := l.f.Close() // closing drops the flock
	l.f = nil
	return err
}

// writeLock is the write lock of a store: "<store>.lock" beside it.
type writeLock = fileLock

func lockPath(store string) string { return store + ".lock" }

func acquireWriteLock(store, command string) (*writeLock, error) {
	l, note, busy, err := tryLock(lockPath(store), command)
	if busy && note.PID == 0 {
		// No writer's note: a reader taking its turn (turns.go).
		if rs := readers(store); len(rs) > 0 {
			r := rs[0]
			return nil, &LockedError{Store: filepath.Base(store), PID: r.PID, Command: r.Command, Since: r.Since, Reading: true}
		}
	}
	if busy {
		signalWant(store)
		return nil, &LockedError{Store: filepath.Base(store), PID: note.PID, Command: note.Command, Since: note.Since}
	}
	return l, err
}

// Readers register themselves beside the store ("<store>.reader.<pid>",
// flocked while open) so that a writer DuckDB refuses can name them.
func readerPath(store string, pid int) string { return fmt.Sprintf("%s.reader.%d", store, pid) }

// registerReader notes that this process has store open read-only. A
// failure to register only costs a less precise message, so it is ignored.
func registerReader(store, command string) *fileLock {
	l, _, _, err := tryLock(readerPath(store, os.Getpid()), command)
	if err != nil || l == nil {
		return nil
	}
	l.remove = true
	return l
}

// readers lists the other live processes that have store open read-only,
// removing the notes of dead ones.
func readers(store string) []lockNote {
	paths, _ := filepath.Glob(store + ".reader.*")
	var out []lockNote
	for _, p := range paths {
		if strings.HasSuffix(p, fmt.Sprintf(".reader.%d", os.Getpid())) {
			continue
		}
		l, note, busy, err := tryLock(p, "")
		switch {
		case busy:
			out = append(out, note)
		case err == nil:
			l.remove = true
			l.release() //nolint:errcheck // a stale note of a dead reader
		}
	}
	return out
}

// translateOpenError turns DuckDB's raw file-lock refusal into a LockedError
// naming the holder: a cra reader, a cra writer other than this process, or
// some other program such as the duckdb CLI. It never names this process.
func translateOpenError(store string, err error) error {
	if err == nil || !strings.Contains(err.Error(), "Could not set lock on file") {
		return err
	}
	if rs := readers(store); len(rs) > 0 {
		r := rs[0]
		return &LockedError{Store: filepath.Base(store), PID: r.PID, Command: r.Command, Since: r.Since, Reading: true}
	}
	if note, rerr := readNote(lockPath(store)); rerr == nil && note.PID != 0 && note.PID != os.Getpid() && writerAlive(store) {
		return &LockedError{Store: filepath.Base(store), PID: note.PID, Command: note.Command, Since: note.Since}
	}
	return &OtherProgramError{Store: filepath.Base(store), Detail: firstLine(err.Error())}
}

// OtherProgramError says a program other than cra (a duckdb CLI, a notebook)
// has the store open.
type OtherProgramError struct{ Store, Detail string }

func (e *OtherProgramError) Error() string {
	return fmt.Sprintf("%s is open in another program (%s): close it and run again", e.Store, e.Detail)
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
