package shards

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

func rowsOf(t *testing.T, conn *sql.Conn, q string) []string {
	t.Helper()
	out := storetest.RowsOf(t, conn, q)
	sort.Strings(out)
	return out
}

func dumpConn(t *testing.T, conn *sql.Conn, queries map[string]string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for name, q := range queries {
		out[name] = rowsOf(t, conn, q)
	}
	return out
}

// homeDump is a home's answers to queries, read as `cra sql` reads it:
// waiting for a writer (another test's export of a shared shard home).
func homeDump(t *testing.T, home string, queries map[string]string) map[string][]string {
	t.Helper()
	a, err := kb.AttachWith(context.Background(), home, kb.Options{Command: "test", Wait: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	return dumpConn(t, a.Conn, queries)
}

// shardsDump is the answers of `cra sql --shards dir`.
func shardsDump(t *testing.T, dir string, queries map[string]string) map[string][]string {
	t.Helper()
	a, err := Attach(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	return dumpConn(t, a.Conn, queries)
}

// tableHashes are a row count and a hash of every row of each table an
// import writes, run ids and times included.
func tableHashes(t *testing.T, home string) map[string][]string {
	t.Helper()
	q := map[string]string{}
	for _, tb := range append(TableNames(), "shard_runs") {
		q[tb] = fmt.Sprintf("SELECT count(*), md5(coalesce(string_agg(x::VARCHAR, '|' ORDER BY x::VARCHAR), '')) FROM raw.%s x", tb)
	}
	return homeDump(t, home, q)
}

func sameRows(t *testing.T, got, want map[string][]string) {
	t.Helper()
	storetest.SameRows(t, got, want)
}

func exportAll(t *testing.T, homes []string, dir string) {
	t.Helper()
	for k, h := range homes {
		if _, err := Export(context.Background(), h, dir, Shard{K: k, N: len(homes)}, ExportOptions{}); err != nil {
			t.Fatalf("export shard %d/%d: %v", k, len(homes), err)
		}
	}
}

func importInto(t *testing.T, home, dir string, opts ImportOptions) *ImportSummary {
	t.Helper()
	sum, err := Import(context.Background(), home, dir, opts)
	if err != nil {
		t.Fatalf("import %s: %v", dir, err)
	}
	return sum
}

func tempDir(t *testing.T, name string) string {
	return filepath.Join(t.TempDir(), name)
}
