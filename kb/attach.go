package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"
)

// Attached is an in-memory DuckDB session with both stores attached as the
// catalogs "curated" and "raw", as `cra sql` and notebooks see them.
// Unqualified names resolve in raw first, then curated.
type Attached struct {
	Conn  *sql.Conn // one connection: ATTACH and search_path are per session
	db    *sql.DB
	locks []*writeLock
	// readers note that this process has the stores open read-only.
	readers []*fileLock
	// tmp is the spill folder of an AttachEmpty session, removed on Close.
	tmp string
}

// Attach opens both stores of home dir. Read-only unless write, in which case
// it takes both write locks (and applies pending migrations) first.
func Attach(ctx context.Context, dir string, write bool, command string) (*Attached, error) {
	return AttachWith(ctx, dir, Options{Write: write, Command: command})
}

// AttachWith is Attach as opts say (Write, Command, Wait and Waiting as
// for Open). A reader holds the stores from its ATTACH to Close: it should
// close them as soon as its queries are done, so that a writer waiting
// for it gets in.
func AttachWith(ctx context.Context, dir string, opts Options) (*Attached, error) {
	if opts.Wait > 0 {
		return attachWaiting(ctx, dir, opts)
	}
	return attach(ctx, dir, opts, time.Time{}, nil)
}

// attach opens both stores once. A reader takes its turn on both (see
// turns.go) for the time it attaches; a writer takes both write locks and
// waits, until until, for readers in the files to leave.
func attach(ctx context.Context, dir string, opts Options, until time.Time, tell func(error)) (*Attached, error) {
	write, command := opts.Write, opts.Command
	a := &Attached{}
	ok := false
	var turns []*os.File
	defer func() {
		for _, t := range turns {
			t.Close() // drops the reader's turn
		}
		if !ok {
			a.Close()
		}
	}()
	for _, k := range Kinds {
		path := k.Path(dir)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, &NotInitializedError{Path: path}
		}
		if !write {
			// Noted first, so that a writer refused by the turn can name it.
			if r := registerReader(path, command); r != nil {
				a.readers = append(a.readers, r)
			}
			t, err := readTurn(path)
			if err != nil {
				return nil, err
			}
			if t != nil {
				turns = append(turns, t)
			}
			continue
		}
		lock, err := acquireWriteLock(path, command)
		if err != nil {
			return nil, err
		}
		a.locks = append(a.locks, lock)
		db, err := openMigratedWaiting(ctx, path, k, until, tell)
		if err != nil {
			return nil, err
		}
		if err := db.Close(); err != nil {
			return nil, err
		}
	}
	db, err := sql.Open("duckdb", dsn(dir, "", nil))
	if err != nil {
		return nil, err
	}
	a.db = db
	if a.Conn, err = db.Conn(ctx); err != nil {
		return nil, err
	}
	for _, k := range Kinds {
		path := k.Path(dir)
		mode := " (READ_ONLY)"
		if write {
			mode = ""
		}
		q := fmt.Sprintf("ATTACH %s AS %s%s", quoteLiteral(path), k, mode)
		if _, err := a.Conn.ExecContext(ctx, q); err != nil {
			if len(turns) == len(Kinds) {
				return nil, fmt.Errorf("attach %s: %w", path, damaged(path, readerOpenError(path, err)))
			}
			return nil, fmt.Errorf("attach %s: %w", path, damaged(path, translateOpenError(path, err)))
		}
		v, err := schemaVersion(ctx, a.Conn, string(k))
		if err != nil {
			return nil, fmt.Errorf("attach %s: %w", path, err)
		}
		if v > LatestVersion(k) {
			return nil, &NewerStoreError{Store: k.File(), Version: v, Know: LatestVersion(k)}
		}
		if err := checkWhole(ctx, a.Conn, path, string(k)); err != nil {
			return nil, err
		}
	}
	if _, err := a.Conn.ExecContext(ctx, "SET search_path = 'raw,curated'"); err != nil {
		return nil, err
	}
	ok = true
	return a, nil
}

// Close detaches the stores (checkpointing what was written) and releases the locks.
func (a *Attached) Close() error {
	if a == nil {
		return nil
	}
	var errs []error
	if a.Conn != nil {
		if len(a.locks) > 0 {
			for _, k := range Kinds {
				_, err := a.Conn.ExecContext(context.Background(), "CHECKPOINT "+string(k))
				errs = append(errs, err)
			}
		}
		errs = append(errs, a.Conn.Close())
		a.Conn = nil
	}
	if a.db != nil {
		errs = append(errs, a.db.Close())
		a.db = nil
	}
	for _, l := range append(a.locks, a.readers...) {
		errs = append(errs, l.release())
	}
	a.locks, a.readers = nil, nil
	if a.tmp != "" {
		errs = append(errs, os.RemoveAll(a.tmp))
		a.tmp = ""
	}
	return errors.Join(errs...)
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
