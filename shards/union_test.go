package shards

import (
	"fmt"
	"testing"
)

// The union of the shards of N homes, imported into a new home or queried
// in place, is what one home mining every repository holds.
func TestUnionEqualsOneRun(t *testing.T) {
	t.Parallel()
	want := homeDump(t, singleHome(t), Checks)
	if len(want["tasks"]) < fixtureRepos*5 || len(want["merges"]) == 0 {
		t.Fatalf("the single run mined %d tasks and %d merges: the fixture is too small to compare", len(want["tasks"]), len(want["merges"]))
	}
	for _, n := range []int{1, 2, 3, 5} {
		t.Run(fmt.Sprintf("N=%d", n), func(t *testing.T) {
			dir := tempDir(t, "shards")
			exportAll(t, shardHomes(t, n), dir)
			home := newHome(t, fmt.Sprintf("union%d", n))
			importInto(t, home, dir, ImportOptions{ChunkRows: 7})
			sameRows(t, homeDump(t, home, Checks), want)
			sameRows(t, shardsDump(t, dir, Checks), want)
		})
	}
}

// Importing the same shards again adds nothing: every table's rows, run
// ids included, are as the first import left them.
func TestImportTwiceAddsNothing(t *testing.T) {
	t.Parallel()
	dir := tempDir(t, "shards")
	exportAll(t, shardHomes(t, 2), dir)
	home := newHome(t, "twice")
	first := importInto(t, home, dir, ImportOptions{})
	if first.Added["synthetic_tasks"] == 0 || len(first.Shards) != 2 || first.Shards[0].NewRuns != 1 {
		t.Fatalf("the first import added %v with shards %+v", first.Added, first.Shards)
	}
	want := tableHashes(t, home)
	again := importInto(t, home, dir, ImportOptions{ChunkRows: 5})
	for tb, n := range again.Added {
		if n != 0 {
			t.Errorf("the second import added %d rows to %s", n, tb)
		}
	}
	for _, s := range again.Shards {
		if s.NewRuns != 0 {
			t.Errorf("the second import made %d new runs of shard %d", s.NewRuns, s.Shard)
		}
	}
	sameRows(t, tableHashes(t, home), want)
}

// A change of N moves repositories between shards: after exports under
// N = 3 and then N = 2 into one folder (shard 2 of 3 stays, holding
// repositories shards 0 and 1 of 2 hold too), an import after each and
// the views in place still hold each row once.
func TestRepositoryMovedByANewCountIsNeitherLostNorDoubled(t *testing.T) {
	t.Parallel()
	want := homeDump(t, singleHome(t), Checks)
	dir := tempDir(t, "shards")
	home := newHome(t, "moved")
	exportAll(t, shardHomes(t, 3), dir)
	importInto(t, home, dir, ImportOptions{})
	sameRows(t, homeDump(t, home, Checks), want)
	exportAll(t, shardHomes(t, 2), dir)
	sum := importInto(t, home, dir, ImportOptions{ChunkRows: 11})
	if len(sum.Counts) != 2 {
		t.Errorf("the manifests' counts are %v, want the 2 and the 3 of shard 2", sum.Counts)
	}
	sameRows(t, homeDump(t, home, Checks), want)
	union := shardsDump(t, dir, Checks)
	sameRows(t, union, want)
	// The folder does hold a repository twice: otherwise nothing here
	// tested the deduplication.
	a, err := Attach(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	files := rowsOf(t, a.Conn, "SELECT count(*) FROM read_parquet('"+dir+"/synthetic_tasks/*/*.parquet')")
	if files[0] == fmt.Sprint(len(want["tasks"])) {
		t.Fatalf("the files hold %s tasks, as many as the union: no repository sits in two shards", files[0])
	}
}
