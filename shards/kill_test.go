package shards

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/storetest"
)

// An export killed with SIGKILL after some of its files are in place
// leaves the shard as it was: the manifest names the previous generation
// (here: shard 0 exported from a home that mined nothing), so import and
// the views see no row of the killed one. Exporting again completes the
// union and removes what the killed one left.
func TestKilledExportLeavesNoPartialShard(t *testing.T) {
	t.Parallel()
	want := homeDump(t, singleHome(t), Checks)
	homes := shardHomes(t, 2)
	empty := newHome(t, "empty")
	dir := tempDir(t, "shards")
	exportAll(t, []string{empty, homes[1]}, dir)
	before := homeDump(t, homes[1], Checks)
	if len(before["tasks"]) == 0 || len(before["tasks"]) == len(want["tasks"]) {
		t.Fatalf("shard 1 of 2 holds %d of %d tasks: the test needs both shards to hold some", len(before["tasks"]), len(want["tasks"]))
	}
	runsDir := filepath.Join(dir, runsTable, "shard=0")
	placed := func() bool {
		entries, _ := os.ReadDir(runsDir)
		return len(entries) > 1 // the old generation's file and the new one's
	}
	killed := storetest.KillWhen(t, []string{envExport + "=" + homes[0], envDir + "=" + dir, envShard + "=0/2"}, placed, 100*time.Millisecond)
	if !killed {
		t.Fatal("the export finished before it was killed")
	}
	if !placed() {
		t.Fatal("no file of the killed export is in place: the kill came too early to test anything")
	}
	home := newHome(t, "afterkill")
	importInto(t, home, dir, ImportOptions{})
	sameRows(t, homeDump(t, home, Checks), before)
	sameRows(t, shardsDump(t, dir, Checks), before)

	sum, err := Export(t.Context(), homes[0], dir, Shard{K: 0, N: 2}, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Removed < 2 {
		t.Errorf("the export removed %d files; the killed one's and the previous generation's are at least 2", sum.Removed)
	}
	for _, tb := range TableNames() {
		entries, _ := os.ReadDir(filepath.Join(dir, tb, "shard=0"))
		if len(entries) != 1 {
			t.Errorf("%s/shard=0 holds %d files, want the one generation", tb, len(entries))
		}
	}
	if _, err := os.Stat(filepath.Join(dir, tmpDir, "shard=0")); !os.IsNotExist(err) {
		t.Errorf("the temporary folder of shard 0 is still there (%v)", err)
	}
	importInto(t, home, dir, ImportOptions{})
	sameRows(t, homeDump(t, home, Checks), want)
	sameRows(t, shardsDump(t, dir, Checks), want)
}

// An import killed with SIGKILL between two of its transactions leaves a
// home that opens and holds no row twice; running it again completes the
// union.
func TestKilledImportIsCompletedByARerun(t *testing.T) {
	t.Parallel()
	want := homeDump(t, singleHome(t), Checks)
	dir := tempDir(t, "shards")
	exportAll(t, shardHomes(t, 2), dir)
	home := newHome(t, "killedimport")
	mark := filepath.Join(t.TempDir(), "chunk")
	committed := func() bool { _, err := os.Stat(mark); return err == nil }
	if !storetest.KillWhen(t, []string{envImport + "=" + home, envDir + "=" + dir, envMark + "=" + mark}, committed, 150*time.Millisecond) {
		t.Fatal("the import finished before it was killed")
	}
	partial := homeDump(t, home, map[string]string{
		"tasks":   "SELECT count(*) - count(DISTINCT id) AS doubled, count(*) FROM synthetic_tasks",
		"targets": "SELECT count(*) - count(DISTINCT id) AS doubled, count(*) FROM synthetic_targets",
	})
	for name, rows := range partial {
		if !strings.HasPrefix(rows[0], "0\t") {
			t.Errorf("%s after the kill: doubled and rows %q; want none twice", name, rows[0])
		}
	}
	if partial["targets"][0] == "0\t0" {
		t.Error("the killed import left no target: it was killed before its first chunk")
	}
	if got := homeDump(t, home, Checks); len(got["tasks"]) == len(want["tasks"]) && len(got["repos"]) == len(want["repos"]) {
		t.Fatal("the killed import had loaded everything: nothing tested")
	}
	importInto(t, home, dir, ImportOptions{ChunkRows: 3})
	sameRows(t, homeDump(t, home, Checks), want)
}
