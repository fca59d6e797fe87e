package curate_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/notebooks"
)

// A real curate-data process killed -9 in its write phase — after some of
// its batches of examples were committed, before its version was
// registered — then read by `cra sql` (a read-only open after the kill):
// plain SQL over raw.training_examples and the dataset_composition
// notebook show no row of the version that was never registered, and the
// next run builds that version number with the ids and rows of a clean
// build.
func TestCurateDataKilledWhileWritingShowsNoUnregisteredRows(t *testing.T) {
	t.Parallel()
	home := cli.NewHome(t)
	storetest.SyntheticTasks(t, home, 2500) // 10,000 targets: five batches of examples
	args := []string{"--home", home, "curate-data", "--name", "kj"}
	env := []string{clitest.ChildEnv(args...)}
	start := time.Now()
	cli.MustRun(t, home, args[2:]...)
	t.Logf("a clean build: %v", time.Since(start))
	want := versionRows(t, home, "kj", 1)
	notebook := notebookFile(t, "dataset_composition.sql")
	wal := kb.Raw.Path(home) + ".wal"
	// The write phase is seen from outside as the first commit of examples
	// in the raw store's write-ahead log (a batch is megabytes; the first kill lands inside that commit).
	writing := func() bool {
		fi, err := os.Stat(wal)
		return err == nil && fi.Size() > 1<<20
	}
	inWrite := 0
	// Two points: inside the first commit of examples, and between later
	// batches. A third at 1.5 s tested the second's phase again, when it
	// landed at all: the whole write phase takes about that long, and the
	// run had often registered its version first.
	for i, after := range []time.Duration{0, 300 * time.Millisecond} {
		v := i + 2 // the version the killed run builds
		// A killed run's log is replayed now, not taken for this run's.
		if _, err := os.Stat(wal); err == nil {
			cli.MustRun(t, home, "sql", "--write", "CHECKPOINT raw")
		}
		killed := storetest.KillWhen(t, env, writing, after)
		staged := cli.SQLRows(t, home, "SELECT count(*) FROM raw.training_examples_staging WHERE dataset = 'kj'")
		registered := cli.SQLRows(t, home, "SELECT count(*) FROM raw.dataset_versions WHERE name = 'kj' AND version = "+strconv.Itoa(v))
		t.Logf("kill %d (%v after the first commit): killed %v, staged rows %s, version %d registered %s", i, after, killed,
			strings.Fields(staged)[1], v, strings.Fields(registered)[1])
		if killed && registered == "count_star()\n0\n" && staged != "count_star()\n0\n" {
			inWrite++
		}
		if got := cli.SQLRows(t, home, "SELECT version, count(*) FROM raw.training_examples WHERE dataset = 'kj' "+
			"AND version NOT IN (SELECT version FROM raw.dataset_versions WHERE name = 'kj') GROUP BY ALL"); got != "version,count_star()\n" {
			t.Errorf("kill %d: raw.training_examples shows rows of versions never registered:\n%s", i, got)
		}
		for _, line := range strings.Split(cli.MustRun(t, home, "sql", "--format", "csv", "-f", notebook), "\n") {
			if strings.HasPrefix(line, "kj,"+strconv.Itoa(v)+",") && registered == "count_star()\n0\n" {
				t.Errorf("kill %d: the notebook reports version %d, never registered: %s", i, v, line)
				break
			}
		}
		if registered == "count_star()\n0\n" {
			cli.MustRun(t, home, args[2:]...)
		}
		if got := versionRows(t, home, "kj", v); got != want {
			t.Errorf("kill %d: version %d after the kill holds %s, a clean build %s", i, v, got, want)
		}
	}
	if inWrite == 0 {
		t.Error("no kill landed between the first batch and the registration: the test proved nothing")
	}
	if got := cli.SQLRows(t, home, "SELECT count(*) FROM raw.training_examples_staging"); got != "count_star()\n0\n" {
		t.Errorf("staged rows left after every version was registered: %s", got)
	}
}

// versionRows sums up version v of dataset name: its row count and a hash
// of every row but its version and time, in id order.
func versionRows(t *testing.T, home, name string, v int) string {
	t.Helper()
	out := cli.SQLRows(t, home, "SELECT count(*) || ' rows, md5 ' || coalesce(md5(string_agg(concat_ws('|', id, stage, source, split, kind, label, "+
		"repo_path, commit, target_id, messages::VARCHAR, prompt_tokens, completion_tokens), chr(10) ORDER BY id)), '') "+
		"FROM raw.training_examples WHERE dataset = '"+name+"' AND version = "+strconv.Itoa(v))
	return strings.TrimSpace(out[strings.Index(out, "\n")+1:])
}

// notebookFile writes the shipped notebook name to a file, as users run
// it with `cra sql -f`.
func notebookFile(t *testing.T, name string) string {
	t.Helper()
	all, err := notebooks.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, nb := range all {
		if nb.Name == name {
			path := filepath.Join(t.TempDir(), name)
			if err := os.WriteFile(path, []byte(nb.SQL), 0o644); err != nil {
				t.Fatal(err)
			}
			return path
		}
	}
	t.Fatalf("no notebook %s", name)
	return ""
}
