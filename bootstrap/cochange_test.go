package bootstrap

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// The co-change rule is written twice: in SQL, over the index's history
// (ingest/derive.go), and in Go, over bootstrap's replayed history
// (cochange.go). On one history they must count the same pairs: merges and
// commits over the file limit left out, by the same limit.
func TestCoChangeRuleAgreesBetweenIndexAndBootstrap(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	write := func(msg string, files ...string) {
		for _, f := range files {
			r.Write(f, fmt.Sprintf("# %s\nVALUE = %q\n", f, msg))
		}
		r.Commit(msg)
	}
	write("Create the package with its four modules", "a.py", "b.py", "c.py", "d.py")
	write("Change a and b together", "a.py", "b.py")
	write("Change a and b together again", "a.py", "b.py")
	write("Change b and c together", "b.py", "c.py")
	write("Change a, b, c and d at once: over the limit", "a.py", "b.py", "c.py", "d.py")
	write("Change a, b and c at once: at the limit", "a.py", "b.py", "c.py")
	write("Change only d alone", "d.py")
	r.Git("checkout", "-q", "-b", "side")
	write("Change c and d on a side branch", "c.py", "d.py")
	r.Git("checkout", "-q", "main")
	write("Add e beside a on main", "a.py", "e.py")
	r.Merge("side", "Merge branch 'side'")
	r.Remove("d.py")
	write("Remove d and change a and b", "a.py", "b.py")

	const limit = 3
	home := newHome(t)
	opts := testOptions()
	opts.CoChangeMaxFiles = limit
	mine(t, home, opts, r.Dir)

	// The index's counts, by path pair.
	sqlPairs := storetest.Rows(t, home, kb.Curated, `SELECT least(fa.path, fb.path), greatest(fa.path, fb.path), count FROM co_changes
		JOIN files fa ON fa.id = file_a_id JOIN files fb ON fb.id = file_b_id ORDER BY 1, 2`)

	// Bootstrap's counts over the commits it recorded, after the last one,
	// for the files of the indexed tree.
	raw, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	known, err := (&rawStore{kb.Writer{Conn: mustConn(t, raw)}}).knownCommits(context.Background(), kb.CanonicalPath(r.Dir))
	raw.Close()
	if err != nil {
		t.Fatal(err)
	}
	var cos []coCommit
	for _, k := range known {
		if !k.merge {
			cos = append(cos, k.co)
		}
	}
	h := newCoHistory(cos, limit)
	tree := storetest.Rows(t, home, kb.Curated, "SELECT path FROM files ORDER BY path")
	var goPairs []string
	for _, a := range tree {
		for b, n := range h.neighbours(a, time.Now()) {
			if a < b && slices.Contains(tree, b) {
				goPairs = append(goPairs, strings.Join([]string{a, b, fmt.Sprint(n)}, "\t"))
			}
		}
	}
	sort.Strings(goPairs)
	if strings.Join(sqlPairs, "\n") != strings.Join(goPairs, "\n") {
		t.Errorf("co-change pairs differ:\nindex (SQL):\n%s\nbootstrap (Go):\n%s", strings.Join(sqlPairs, "\n"), strings.Join(goPairs, "\n"))
	}
	if len(goPairs) == 0 {
		t.Error("no co-change pair at all: the fixture proves nothing")
	}
}

func mustConn(t *testing.T, s *kb.Store) *sql.Conn {
	t.Helper()
	c, err := s.DB.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
