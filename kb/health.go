package kb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Errors DuckDB reports in its own words (with its tuning advice) are
// turned here into errors that say, in cra's, what happened to which store
// and what to do about it.

// DamagedError says a store file is not whole: truncated, overwritten or
// failing its checksums. Nothing is done on it.
type DamagedError struct {
	Store  string // file name, e.g. raw.duckdb; "" when DuckDB did not say which
	Detail string // what DuckDB or the check found, one line
	Advice string // what to do, when the damage calls for other advice than the store's own
}

func (e *DamagedError) Error() string {
	store := e.Store
	if store == "" {
		store = "a store"
	}
	advice := "restore it from a copy (cp while no cra runs)"
	switch e.Store {
	case Curated.File():
		advice = "it is derived: move it aside and run `cra init` then `cra index` to rebuild it"
	case Raw.File():
		advice = "it holds training data that cannot be rebuilt: restore it from a copy (cp while no cra runs); " +
			"if it still opens, `cra sql \"EXPORT DATABASE ...\"` or `cra compact` may save what is readable; " +
			"else move it aside and `cra init` makes an empty one"
	}
	if e.Advice != "" {
		advice = e.Advice
	}
	return fmt.Sprintf("%s is damaged (%s): nothing was done on it; %s", store, e.Detail, advice)
}

// OutOfMemoryError says DuckDB needed more memory than cra gives it.
type OutOfMemoryError struct {
	Limit  string // the memory_limit in force
	Detail string
}

func (e *OutOfMemoryError) Error() string {
	return fmt.Sprintf("the stores ran out of memory (DuckDB's memory_limit is %s: %s): "+
		"raise memory_limit under [store] in config.toml, or run fewer --jobs; what was saved stays, run the same command again to finish",
		e.Limit, e.Detail)
}

// DiskFullError says a write failed for lack of disk space.
type DiskFullError struct{ Detail string }

func (e *DiskFullError) Error() string {
	return fmt.Sprintf("the disk is full (%s): free some space (`cra datasets prune` and `cra compact` give back the stores' own), "+
		"then run the same command again to finish; what was saved stays", e.Detail)
}

// Explain returns err as one of the errors above when DuckDB's message
// says it is one, else err unchanged.
func Explain(err error) error {
	if err == nil || errors.As(err, new(*DamagedError)) || errors.As(err, new(*OutOfMemoryError)) ||
		errors.As(err, new(*DiskFullError)) {
		return err
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "Out of Memory Error"):
		return &OutOfMemoryError{Limit: MemoryLimit(), Detail: duckdbLine(msg)}
	case strings.Contains(msg, "No space left on device"), strings.Contains(msg, "Disk full"):
		return &DiskFullError{Detail: duckdbLine(msg)}
	case isDamage(msg):
		return &DamagedError{Store: storeNamed(msg), Detail: duckdbLine(msg)}
	}
	return err
}

// isDamage reports whether a DuckDB message says a file is not whole.
func isDamage(msg string) bool {
	for _, s := range []string{"Corrupt database file", "not a valid DuckDB database file", "checksum", "database file is truncated",
		"Failed to read database header", "Could not read enough bytes from file"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// damaged is err as a DamagedError of store path when it says the file
// is not whole.
func damaged(path string, err error) error {
	if err != nil && isDamage(err.Error()) {
		return &DamagedError{Store: filepath.Base(path), Detail: duckdbLine(err.Error())}
	}
	return err
}

// storeNamed is the store file a message names, if any.
func storeNamed(msg string) string {
	for _, k := range Kinds {
		if strings.Contains(msg, k.File()) {
			return k.File()
		}
	}
	return ""
}

// duckdbLine is the first line of an error's message: what failed and
// DuckDB's words for it, without DuckDB's advice on the lines after.
func duckdbLine(msg string) string { return strings.TrimSpace(firstLine(msg)) }

// headerBytes is the size of a DuckDB file's headers, before its blocks.
const headerBytes = 3 * 4096

// checkWhole reports a DamagedError when the file at path holds fewer
// whole blocks than its header says are in use: a copy or a write that
// stopped half way. A file ending inside a block is not damaged for that:
// a process killed while a checkpoint wrote a block past the others leaves
// part of it, and DuckDB writes over it when the file grows again; nor is
// one a block shorter than the header's total, whose last block, free, is
// not always written. catalog is the store's name in an attached session,
// "" for the open database.
func checkWhole(ctx context.Context, q querier, path, catalog string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	var blockSize, used int64
	err = q.QueryRowContext(ctx, `SELECT block_size, used_blocks FROM pragma_database_size()
		WHERE database_name = coalesce(nullif(?, ''), current_database())`, catalog).Scan(&blockSize, &used)
	if err != nil {
		return damaged(path, fmt.Errorf("read the size of %s: %w", filepath.Base(path), err))
	}
	if blockSize == 0 || used == 0 {
		return nil
	}
	if whole := (st.Size() - headerBytes) / blockSize; st.Size() < headerBytes || whole < used {
		return &DamagedError{Store: filepath.Base(path),
			Detail: fmt.Sprintf("the file is %d bytes, its header counts %d blocks of %d bytes in use: it was cut short", st.Size(), used, blockSize)}
	}
	return nil
}
