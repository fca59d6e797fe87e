package bootstrap

import (
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// storeRows is every row of every raw table but the run's own
// (bootstrap_runs, bootstrap_repos), by table.
func storeRows(t *testing.T, home string) map[string][]string {
	t.Helper()
	queries := map[string]string{}
	for _, table := range rawRows(t, home, `SELECT table_name FROM duckdb_tables() WHERE database_name = current_database()
		AND table_name NOT IN ('bootstrap_runs', 'bootstrap_repos')`) {
		queries[table] = "SELECT * FROM " + table
	}
	return storetest.Dump(t, home, kb.Raw, queries)
}

// A re-run that finds no new commit in two repositories opens raw.duckdb
// once — its run row, both repositories settled, the run finished — and
// writes nothing but its run rows. Not parallel: it counts the opens of
// every run in the process.
func TestNoChangeRunOpensTheStoreOnceAndWritesOnlyItsRunRows(t *testing.T) {
	a, _ := project(t)
	b, _ := project(t)
	home := newHome(t)
	first := mine(t, home, testOptions(), a.Dir, b.Dir)
	before := storeRows(t, home)
	if len(before["synthetic_tasks"]) == 0 {
		t.Fatal("the first run mined nothing")
	}

	var mu sync.Mutex
	opens := map[string]int{}
	storeOpened = func(dir string) { mu.Lock(); opens[dir]++; mu.Unlock() }
	defer func() { storeOpened = nil }()
	sum := mine(t, home, testOptions(), a.Dir, b.Dir)
	storeOpened = nil

	for _, res := range sum.Repos {
		if res.Status != kb.StatusUpToDate || res.Walked != 0 {
			t.Errorf("%s: %s, walked %d; want up_to_date, nothing walked", res.Repo, res.Status, res.Walked)
		}
	}
	if opens[home] != 1 {
		t.Errorf("the no-change run opened raw.duckdb %d times, want once", opens[home])
	}
	sameRows(t, storeRows(t, home), before)
	if got := rawRows(t, home, "SELECT id, status, finished_at IS NOT NULL FROM bootstrap_runs ORDER BY id"); !slices.Equal(got,
		[]string{itoa(first.RunID) + "\tok\ttrue", itoa(sum.RunID) + "\tok\ttrue"}) {
		t.Errorf("runs %q: want both ok and finished", got)
	}
	if got := rawRows(t, home, "SELECT DISTINCT last_run_id, last_status FROM bootstrap_repos"); !slices.Equal(got, []string{itoa(sum.RunID) + "\tup_to_date"}) {
		t.Errorf("repositories %q: want both up_to_date by run %d", got, sum.RunID)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
