package shards

import (
	"fmt"
	"testing"
)

// The union of the shards of N homes, imported into a new home or queried
// in place, is what one home mining every repository holds.
func TestUnionEqualsOneRun(t *testing.T) {
	want := homeDump(t, singleHome(t), unionQueries)
	if len(want["tasks"]) < fixtureRepos*5 || len(want["merges"]) == 0 {
		t.Fatalf("the single run mined %d tasks and %d merges: the fixture is too small to compare", len(want["tasks"]), len(want["merges"]))
	}
	for _, n := range []int{1, 2, 3, 5} {
		t.Run(fmt.Sprintf("N=%d", n), func(t *testing.T) {
			dir := tempDir(t, "shards")
			exportAll(t, shardHomes(t, n), dir)
			home := newHome(t, fmt.Sprintf("union%d", n))
			importInto(t, home, dir, ImportOptions{ChunkRows: 7})
			sameRows(t, homeDump(t, home, unionQueries), want)
			sameRows(t, shardsDump(t, dir, unionQueries), want)
		})
	}
}
