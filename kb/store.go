package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
)

// Kind names one of the two stores.
type Kind string

const (
	Curated Kind = "curated"
	Raw     Kind = "raw"
)

// Kinds lists both stores in the order cra attaches them.
var Kinds = []Kind{Curated, Raw}

// File is the store's file name inside the home.
func (k Kind) File() string { return string(k) + ".duckdb" }

// Path is the store's file in home dir.
func (k Kind) Path(dir string) string { return filepath.Join(dir, k.File()) }

// Store is one open store. A writable Store holds the write lock until Close:
// writers should open, write in bounded transactions and close, not sit on it.
type Store struct {
	DB   *sql.DB
	Kind Kind
	Path string
	lock *writeLock
	// reader notes that this process has the store open read-only, so a
	// writer DuckDB refuses can name it.
	reader *fileLock
}

// Options say how to open a store.
type Options struct {
	// Write opens read-write: it takes the write lock and applies pending
	// migrations. Otherwise the store is opened read-only and must exist.
	Write bool
	// Command describes the writer for the lock note, e.g. "cra bootstrap".
	Command string
	// Wait is how long to wait for a store another process holds (for a
	// writer: a writer, or a reader DuckDB will not share the file with;
	// for a reader: a writer) before giving up with a LockedError; 0 fails
	// at once. Batches that write in short bursts set it, so a `cra sql`
	// between two bursts delays them instead of failing them.
	Wait time.Duration
	// Waiting, when set, is called once if the open has to wait, with
	// what it waits for (a LockedError or an OtherProgramError).
	Waiting func(holder error)
	// readersUntil is how long a writer that has its write lock waits for
	// readers to leave the file (turns.go); set by openWaiting.
	readersUntil time.Time
	// create lets a writer make the store: only Init does, so no other
	// command leaves a store (or its lock) in a home cra init did not make.
	create bool
}

// NotInitializedError says the home has no such store yet.
type NotInitializedError struct{ Path string }

func (e *NotInitializedError) Error() string {
	return fmt.Sprintf("no store at %s: run `cra init` first (or pass --home)", e.Path)
}

// Open opens the store of kind in home directory dir.
func Open(ctx context.Context, dir string, kind Kind, opts Options) (*Store, error) {
	if opts.Wait > 0 {
		return openWaiting(ctx, dir, kind, opts)
	}
	path := kind.Path(dir)
	s := &Store{Kind: kind, Path: path}
	if !opts.Write {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, &NotInitializedError{Path: path}
		}
		s.reader = registerReader(path, opts.Command)
		db, err := openDB(ctx, path, true)
		if err != nil {
			s.reader.release() //nolint:errcheck // the open error says more
			return nil, err
		}
		s.DB = db
		v, err := schemaVersion(ctx, db, "")
		if err == nil && v > LatestVersion(kind) {
			err = &NewerStoreError{Store: kind.File(), Version: v, Know: LatestVersion(kind)}
		}
		if err == nil {
			err = checkWhole(ctx, db, path, "")
		}
		if err != nil {
			s.Close()
			return nil, err
		}
		return s, nil
	}
	if !opts.create {
		if _, err := os.Stat(path); err != nil {
			return nil, &NotInitializedError{Path: path}
		}
	}
	lock, err := acquireWriteLock(path, opts.Command)
	if err != nil {
		return nil, err
	}
	db, err := openMigratedWaiting(ctx, path, kind, opts.readersUntil, opts.Waiting)
	if err != nil {
		lock.release()
		return nil, err
	}
	s.DB, s.lock = db, lock
	return s, nil
}

// openMigrated opens path read-write and applies pending migrations; the
// caller holds the write lock.
func openMigrated(ctx context.Context, path string, kind Kind) (*sql.DB, error) {
	db, err := openDB(ctx, path, false)
	if err != nil {
		return nil, err
	}
	if err := checkWhole(ctx, db, path, ""); err != nil {
		db.Close()
		return nil, err
	}
	if err := migrate(ctx, db, kind, kind.File()); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// StorageVersion is the DuckDB storage format of the store files cra
// makes (Init, Create, Compact's copy). DuckDB's default is the v1.0.0
// format, which keeps each column's distinct-count statistics in a form
// every open converts (13 % of a short read's CPU samples): a store in the
// newer format opens about a sixth faster (BenchmarkShortRead). A store
// made by an older cra keeps its format until `cra compact` rewrites it.
const StorageVersion = "v1.5.0"

// openDB opens the store file path (in its home) with the process's
// memory limit and a spill folder of its own; a writer that finds no file
// makes it in StorageVersion.
func openDB(ctx context.Context, path string, readOnly bool) (*sql.DB, error) {
	extra := url.Values{}
	if readOnly {
		extra.Set("access_mode", "read_only")
	} else if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		extra.Set("storage_compatibility_version", StorageVersion)
	}
	db, err := sql.Open("duckdb", dsn(filepath.Dir(path), path, extra))
	if err == nil {
		err = db.PingContext(ctx)
		if err != nil {
			db.Close()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, damaged(path, translateOpenError(path, err)))
	}
	return db, nil
}

// Close checkpoints a writable store, closes it and releases the lock.
func (s *Store) Close() error {
	if s == nil || s.DB == nil {
		return nil
	}
	var errs []error
	if s.lock != nil {
		// Fold the WAL into the file so other DuckDB clients see one file.
		if _, err := s.DB.Exec("CHECKPOINT"); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, s.DB.Close(), s.lock.release(), s.reader.release())
	s.DB = nil
	return errors.Join(errs...)
}

// Init creates the home and both stores, applying every migration. It is
// idempotent: on an existing home it only applies pending migrations.
func Init(ctx context.Context, dir, command string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create home %s: %w", dir, err)
	}
	for _, k := range Kinds {
		s, err := Open(ctx, dir, k, Options{Write: true, Command: command, create: true})
		if err != nil {
			return err
		}
		if err := s.Close(); err != nil {
			return fmt.Errorf("close %s: %w", k.File(), err)
		}
	}
	return nil
}

// Create opens the store kind of dir for writing, creating dir and the
// store (every migration applied) if they are missing: a scratch store of
// one kind, such as cra eval's knowledge base at a task's parent commit,
// without the other store a home has.
func Create(ctx context.Context, dir string, kind Kind, command string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	return Open(ctx, dir, kind, Options{Write: true, Command: command, create: true})
}

// CheckInitialized returns a *NotInitializedError naming the first store
// home dir lacks: what needs an initialised home asks it before it writes
// anything there (a lock), so a command run before `cra init` leaves the
// home as it found it.
func CheckInitialized(dir string) error {
	for _, k := range Kinds {
		if _, err := os.Stat(k.Path(dir)); err != nil {
			return &NotInitializedError{Path: k.Path(dir)}
		}
	}
	return nil
}

// CanonicalPath is a repository path as the stores key it: absolute, with
// symlinks resolved when the path exists.
func CanonicalPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// BatchWait is how long batch commands (index, bootstrap, enrich,
// curate-data) wait for a store another process holds before they fail.
const BatchWait = 2 * time.Minute

// Held reports whether err says another process holds a store: a cra
// writer or reader, or another program.
func Held(err error) bool {
	return errors.As(err, new(*LockedError)) || errors.As(err, new(*OtherProgramError))
}

// openWaiting retries Open while another process holds the store, backing
// off from 50 ms to 1 s, for at most opts.Wait, saying once what it waits
// for. A writer that has the write lock keeps it while readers leave.
func openWaiting(ctx context.Context, dir string, kind Kind, opts Options) (*Store, error) {
	wait, deadline := 50*time.Millisecond, time.Now().Add(opts.Wait)
	told := false
	tell := func(holder error) {
		if !told && opts.Waiting != nil {
			opts.Waiting(holder)
			told = true
		}
	}
	once := opts
	once.Wait, once.Waiting, once.readersUntil = 0, tell, deadline
	for {
		s, err := Open(ctx, dir, kind, once)
		if err == nil || !Held(err) || time.Now().After(deadline) {
			return s, err
		}
		tell(err)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
	}
}
