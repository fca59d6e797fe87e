package shards

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// Two imports of the same shards into one home at once (overlapping cron
// jobs), each a real process, while a third (this one) reads the home as
// `cra sql` does: both imports finish, the reader gets in and sees no row
// twice, and the home ends with the union once — the rows of one import,
// and as many runs.
func TestTwoImportsAndAReaderAtOnce(t *testing.T) {
	t.Parallel()
	want := homeDump(t, singleHome(t), Checks)
	dir := tempDir(t, "shards")
	exportAll(t, shardHomes(t, 2), dir)
	once := newHome(t, "importedonce")
	importInto(t, once, dir, ImportOptions{})
	counts := map[string]string{
		"runs":       "SELECT count(*) FROM bootstrap_runs",
		"shard_runs": "SELECT count(*), count(DISTINCT (home_id, source_run_id)) FROM shard_runs",
		"doubled":    "SELECT (SELECT count(*) - count(DISTINCT id) FROM synthetic_tasks) + (SELECT count(*) - count(DISTINCT id) FROM synthetic_targets)",
	}

	home := newHome(t, "importedtwice")
	marks := []string{filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")}
	outs := make([]string, len(marks))
	var wg sync.WaitGroup
	for i, mark := range marks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), envImport+"="+home, envDir+"="+dir, envMark+"="+mark)
			out, err := cmd.CombinedOutput()
			outs[i] = strings.TrimSpace(string(out))
			if err != nil {
				outs[i] += " (" + err.Error() + ")"
			}
		}()
	}
	// The reader comes once an import has committed a chunk.
	deadline := time.Now().Add(time.Minute)
	for started := false; !started && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, m := range marks {
			if _, err := os.Stat(m); err == nil {
				started = true
			}
		}
	}
	att, err := kb.AttachWith(context.Background(), home, kb.Options{Command: "cra sql", Wait: time.Minute})
	if err != nil {
		t.Fatalf("the reader during the imports: %v", err)
	}
	read := storetest.RowsOf(t, att.Conn, counts["doubled"])
	att.Close()
	if len(read) != 1 || read[0] != "0" {
		t.Errorf("the reader saw rows twice: %v", read)
	}
	wg.Wait()
	for i, out := range outs {
		if out != "" {
			t.Errorf("import %d: %s", i, out)
		}
	}
	sameRows(t, homeDump(t, home, Checks), want)
	sameRows(t, homeDump(t, home, counts), homeDump(t, once, counts))
}
