package kb

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// Every DuckDB instance cra opens gets the same memory limit and threads,
// and spills to a temporary directory of its own inside the home, so a
// query larger than the limit goes to disk instead of failing, and nothing
// is written outside the home.

// memoryLimit is the process's DuckDB memory_limit ("" for the default);
// set once per command from [store] memory_limit.
var memoryLimit atomic.Value

// SetMemoryLimit sets DuckDB's memory_limit for every store this process
// opens from now on: a size such as "2GB" or "1.5GiB", or "" for
// DefaultMemoryLimit (config.Validate has checked it).
func SetMemoryLimit(limit string) { memoryLimit.Store(strings.TrimSpace(limit)) }

// MemoryLimit is the memory_limit stores open with now.
func MemoryLimit() string {
	if s, _ := memoryLimit.Load().(string); s != "" {
		return s
	}
	return DefaultMemoryLimit()
}

// threads is the process's DuckDB threads per instance (0 for
// DefaultThreads); set once per command from [store] threads.
var threads atomic.Int64

// DefaultThreads is DuckDB's worker threads per open store unless [store]
// threads says otherwise: one. cra's own queries are small, and DuckDB's
// default of one thread per core made them no faster while cmd/cra's
// tests took about a fifth more CPU (the threads hand each query's few
// tasks to one another); curate-data, an export and a bootstrap of
// pallets/click took a little longer with two threads than with one. A
// large ad-hoc `cra sql` is what more threads speed up.
const DefaultThreads = 1

// SetThreads sets DuckDB's threads for every store this process opens from
// now on; 0 means DefaultThreads (config.Validate has checked n ≥ 0).
func SetThreads(n int) { threads.Store(int64(n)) }

// Threads is the number of threads stores open with now.
func Threads() int {
	if n := threads.Load(); n > 0 {
		return int(n)
	}
	return DefaultThreads
}

// DefaultMemoryLimit is a thirty-second of the memory this process may use (the
// machine's, or its cgroup's when lower, as in a container), at least
// 1 GiB and at most 4 GiB: enough for every command on real repositories,
// while DuckDB's cache of the blocks it reads and writes, which it keeps up
// to the limit, stays a small share of a shared machine.
func DefaultMemoryLimit() string { return defaultMemoryLimit(totalMemory()) }

func defaultMemoryLimit(total int64) string {
	b := min(max(total/32, 1<<30), 4<<30)
	return fmt.Sprintf("%dMiB", b>>20)
}

// instances numbers the DuckDB instances of this process, so each gets a
// temporary directory of its own.
var instances atomic.Int64

// TempDir is the home's folder of DuckDB's spill files, one sub-folder
// per open store ("<pid>-<n>"), removed when the store closes.
func TempDir(home string) string { return filepath.Join(home, "tmp") }

// dsn is the DuckDB data source for path (a store file, or "" for an
// in-memory session attaching stores of home): the memory limit and a
// temporary directory of its own under the home, plus extra options.
func dsn(home, path string, extra url.Values) string {
	q := url.Values{}
	for k, v := range extra {
		q[k] = v
	}
	q.Set("memory_limit", MemoryLimit())
	q.Set("threads", strconv.Itoa(Threads()))
	q.Set("temp_directory", filepath.Join(TempDir(home), fmt.Sprintf("%d-%d", os.Getpid(), instances.Add(1))))
	// DuckDB makes its own folder when it first spills, but not tmp/.
	os.Mkdir(TempDir(home), 0o755) //nolint:errcheck // exists already, or the spill says why not
	removeDeadTempDirs(home)
	return path + "?" + q.Encode()
}

// removeDeadTempDirs removes the spill folders of processes that are gone
// (a kill -9 leaves them behind; DuckDB removes its own on close).
func removeDeadTempDirs(home string) {
	entries, err := os.ReadDir(TempDir(home))
	if err != nil {
		return
	}
	for _, e := range entries {
		pidText, _, _ := strings.Cut(e.Name(), "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid == os.Getpid() {
			continue
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			os.RemoveAll(filepath.Join(TempDir(home), e.Name())) //nolint:errcheck // tried again at the next open
		}
	}
}
