package bootstrap

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

func newHome(t testing.TB) string { return storetest.Home(t) }

// testOptions waits for a repository's lock: the package's tests run in
// parallel and start git processes, and a child forked just before a run
// releases its lock holds that flock (the open file it shares) until it
// execs, so the next run of the same test would see the repository busy
// for a moment with no wait. Tests of a busy repository set their own.
func testOptions() Options {
	return Options{Jobs: 2, Filter: config.Default().Bootstrap, Wait: 30 * time.Second}
}

// mine runs a batch and fails the test on a batch error.
func mine(t testing.TB, home string, opts Options, paths ...string) *Summary {
	t.Helper()
	sum, err := Run(context.Background(), home, paths, opts)
	if err != nil {
		t.Fatalf("bootstrap %v: %v", paths, err)
	}
	return sum
}

// rawRows returns a raw-store query's rows as tab-separated lines.
func rawRows(t testing.TB, home, q string, args ...any) []string {
	t.Helper()
	return storetest.Rows(t, home, kb.Raw, q, args...)
}

// outcomes maps each commit seen to its outcome.
func outcomes(t testing.TB, home string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, r := range rawRows(t, home, "SELECT commit, outcome FROM bootstrap_commits") {
		c, o, _ := strings.Cut(r, "\t")
		out[c] = o
	}
	return out
}

// targetOf decodes one commit's ground truth of one stage into v.
func targetOf(t testing.TB, home, commit, stage string, v any) {
	t.Helper()
	rows := rawRows(t, home, "SELECT target::VARCHAR FROM synthetic_targets WHERE commit = ? AND stage = ?", commit, stage)
	if len(rows) != 1 {
		t.Fatalf("commit %.8s stage %s: %d targets, want 1", commit, stage, len(rows))
	}
	if err := json.Unmarshal([]byte(rows[0]), v); err != nil {
		t.Fatalf("commit %.8s stage %s: %v", commit, stage, err)
	}
}

// dumpTables is every bootstrap row a re-run must reproduce, without the
// columns that depend on when or in which run it was written.
var dumpTables = map[string]string{
	"bootstrap_commits": "SELECT repo_path, commit, parents, committed_at, files, insertions, deletions, outcome, detail FROM bootstrap_commits",
	"synthetic_tasks":   "SELECT id, repo_path, commit, parent, author, committed_at, message, task, files_changed, insertions, deletions, source FROM synthetic_tasks",
	"synthetic_targets": "SELECT id, task_id, repo_path, commit, stage, target::VARCHAR, source FROM synthetic_targets",
	"bootstrap_merges":  "SELECT repo_path, commit, parts, outcome FROM bootstrap_merges",
}

func dump(t testing.TB, home string) map[string][]string {
	t.Helper()
	return storetest.Dump(t, home, kb.Raw, dumpTables)
}

// sameRows fails the test on each table whose rows differ.
func sameRows(t testing.TB, got, want map[string][]string) {
	t.Helper()
	storetest.SameRows(t, got, want)
}

// homeWithStoresOf is a new home whose stores of kinds are copies of
// from's, write-ahead logs included (a store never opened since a kill
// keeps one).
func homeWithStoresOf(t *testing.T, from string, kinds ...kb.Kind) string {
	t.Helper()
	home := newHome(t)
	for _, k := range kinds {
		for _, path := range []string{k.Path(from), k.Path(from) + ".wal"} {
			b, err := os.ReadFile(path)
			dst := filepath.Join(home, filepath.Base(path))
			if errors.Is(err, os.ErrNotExist) && path != k.Path(from) {
				os.Remove(dst)
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return home
}
