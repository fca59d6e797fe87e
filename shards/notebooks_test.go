package shards

import (
	"context"
	"fmt"
	"testing"

	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/notebooks"
)

// readsExportedOnly are the notebooks whose every table is exported:
// bootstrap_funnel.sql (bootstrap_commits, bootstrap_runs,
// bootstrap_repos, synthetic_targets). The others read run logs, evals,
// datasets or the curated store, which shards do not carry.
var readsExportedOnly = []string{"bootstrap_funnel.sql"}

// The notebooks over exported tables answer the same on `cra sql
// --shards DIR` as on a home that imported DIR (run numbers included).
func TestNotebooksAgreeOnShardsAndImportedHome(t *testing.T) {
	t.Parallel()
	dir := tempDir(t, "shards")
	exportAll(t, shardHomes(t, 3), dir)
	home := newHome(t, "notebooks")
	importInto(t, home, dir, ImportOptions{})
	all, err := notebooks.All()
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, nb := range all {
		if !contains(readsExportedOnly, nb.Name) {
			continue
		}
		ran++
		imported := notebookAnswers(t, nb, func() (*kb.Attached, error) { return kb.Attach(context.Background(), home, false, "test") })
		union := notebookAnswers(t, nb, func() (*kb.Attached, error) { return Attach(context.Background(), dir) })
		if len(imported) == 0 {
			t.Fatalf("%s: no answers", nb.Name)
		}
		sameRows(t, union, imported)
	}
	if ran != len(readsExportedOnly) {
		t.Fatalf("ran %d notebooks of %v", ran, readsExportedOnly)
	}
}

func notebookAnswers(t *testing.T, nb notebooks.Notebook, open func() (*kb.Attached, error)) map[string][]string {
	t.Helper()
	a, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	out := map[string][]string{}
	for i, stmt := range kb.SplitStatements(nb.SQL) {
		key := fmt.Sprintf("%s #%d", nb.Name, i+1)
		out[key] = rowsOf(t, a.Conn, stmt)
		if len(out[key]) == 0 {
			t.Errorf("%s: no rows, nothing compared", key)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
