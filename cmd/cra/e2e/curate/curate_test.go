package curate_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/golden"
)

func TestCurateDataCommand(t *testing.T) {
	t.Parallel()
	home := cli.NewHome(t)
	r := clitest.HistoryRepo(t)
	r.Write("app/api.py", "from app.store import Store\n\n\ndef handler(key):\n    return Store().get(key, 'none')\n")
	r.Commit("Return none from handler when Store.get finds nothing")
	cli.MustRun(t, home, "bootstrap", r.Dir)
	clitest.TrainAll(t, home)

	var sum struct {
		Dataset  string                    `json:"dataset"`
		Tasks    int                       `json:"tasks"`
		Examples map[string]map[string]int `json:"examples"`
		Dropped  map[string]int            `json:"dropped"`
	}
	if err := json.Unmarshal([]byte(cli.MustRun(t, home, "--json", "curate-data", "--name", "first")), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Dataset != "first" || sum.Tasks != 2 {
		t.Fatalf("summary %+v: want dataset first from 2 tasks", sum)
	}
	stored := cli.MustRun(t, home, "sql", "--format", "csv",
		"SELECT stage, count(*) FROM raw.training_examples WHERE dataset = 'first' GROUP BY stage ORDER BY stage")
	n := 0
	for stage, splits := range sum.Examples {
		n += splits["train"] + splits["validation"]
		if !strings.Contains(stored, stage+",") {
			t.Errorf("stage %s in the summary but not stored:\n%s", stage, stored)
		}
	}
	if n == 0 {
		t.Fatalf("no examples: %+v", sum)
	}

	out := cli.MustRun(t, home, "curate-data", "--name", "scoped", "--stages", "implement,plan", "--holdout-repos", r.Dir, "--validation-only")
	golden.Assert(t, filepath.Join("testdata", "curate", "summary.golden"), []byte(out))
	if got := cli.MustRun(t, home, "sql", "--format", "csv",
		"SELECT DISTINCT split FROM raw.training_examples WHERE dataset = 'scoped'"); got != "split\nvalidation\n" {
		t.Errorf("a holdout repository's examples are in %q, want validation only", got)
	}

	if res := cli.Cra(t, home, "", "curate-data", "--stages", "review"); res.Code != clitest.ExitUsage || !strings.Contains(res.Stderr, "the stages of synthetic are") {
		t.Errorf("unknown stage: exit %d, stderr %q", res.Code, res.Stderr)
	}
	// No cra solve or eval has run in this home: nothing to build from.
	if res := cli.Cra(t, home, "", "curate-data", "--source", "logged"); res.Code != clitest.ExitUsage || !strings.Contains(res.Stderr, "nothing from logged yet") {
		t.Errorf("--source logged: exit %d, stderr %q", res.Code, res.Stderr)
	}
}

// The nightly-trust cases of curate-data and datasets: a typo or an empty
// home writes nothing (exit 2), each run adds a version, NAME@N pins one,
// prune keeps the newest, and an export never lands in a non-empty
// directory (exit 2).
func TestCurateDataVersionsAndRefusals(t *testing.T) {
	t.Parallel()
	empty := cli.NewHome(t)
	if res := cli.Cra(t, empty, "", "curate-data", "--name", "rel"); res.Code != clitest.ExitUsage || !strings.Contains(res.Stderr, "cra bootstrap") {
		t.Errorf("empty home: exit %d, %q; want 2 saying to run cra bootstrap", res.Code, res.Stderr)
	}

	home := cli.NewHome(t)
	r := clitest.HistoryRepo(t)
	cli.MustRun(t, home, "bootstrap", r.Dir)
	clitest.TrainAll(t, home)
	cli.MustRun(t, home, "curate-data", "--name", "rel")
	count := func() string {
		return cli.MustRun(t, home, "sql", "--format", "csv", "SELECT version, count(*) FROM raw.training_examples WHERE dataset = 'rel' GROUP BY 1 ORDER BY 1")
	}
	before := count()
	res := cli.Cra(t, home, "", "curate-data", "--name", "rel", "--repos", r.Dir+"-typo")
	if res.Code != clitest.ExitUsage || !strings.Contains(res.Stderr, r.Dir) {
		t.Errorf("--repos typo: exit %d, %q; want 2 listing the known repositories", res.Code, res.Stderr)
	}
	if after := count(); after != before {
		t.Errorf("a refused run changed the dataset:\n%s\nthen\n%s", before, after)
	}

	cli.MustRun(t, home, "curate-data", "--name", "rel", "--stages", "plan")
	list := cli.MustRun(t, home, "datasets", "list")
	if !strings.Contains(list, "rel   1 ") || !strings.Contains(list, "rel   2 ") {
		t.Errorf("datasets list does not show both versions:\n%s", list)
	}
	var shown struct {
		Version  int                       `json:"version"`
		Examples map[string]map[string]int `json:"examples"`
	}
	if err := json.Unmarshal([]byte(cli.MustRun(t, home, "--json", "datasets", "show", "rel@1")), &shown); err != nil || shown.Version != 1 || len(shown.Examples) < 2 {
		t.Errorf("show rel@1: %+v (%v)", shown, err)
	}
	shown.Examples = nil
	if err := json.Unmarshal([]byte(cli.MustRun(t, home, "--json", "datasets", "show", "rel")), &shown); err != nil || shown.Version != 2 || len(shown.Examples) != 1 {
		t.Errorf("show rel (the latest): %+v (%v)", shown, err)
	}
	if res := cli.Cra(t, home, "", "datasets", "show", "rel@7"); res.Code != clitest.ExitUsage {
		t.Errorf("show rel@7: exit %d, want 2", res.Code)
	}

	out := filepath.Join(t.TempDir(), "v1")
	first := cli.MustRun(t, home, "--json", "datasets", "export", "rel@1", "--out", out)
	if !strings.Contains(first, `"version": 1`) {
		t.Errorf("the manifest does not record version 1:\n%s", first)
	}
	if res := cli.Cra(t, home, "", "datasets", "export", "rel@1", "--out", out); res.Code != clitest.ExitUsage || !strings.Contains(res.Stderr, "not empty") {
		t.Errorf("export into a non-empty directory: exit %d, %q; want 2", res.Code, res.Stderr)
	}
	cli.MustRun(t, home, "datasets", "export", "rel")
	if _, err := os.Stat(filepath.Join(home, "exports", "rel-v2-parquet", "manifest.json")); err != nil {
		t.Errorf("the default export directory names the version: %v", err)
	}

	if got := cli.MustRun(t, home, "datasets", "prune", "rel", "--keep", "1"); !strings.Contains(got, "deleted 1 versions [1]") {
		t.Errorf("prune: %q", got)
	}
	if res := cli.Cra(t, home, "", "datasets", "show", "rel@1"); res.Code != clitest.ExitUsage {
		t.Errorf("rel@1 after prune: exit %d, want 2 (gone)", res.Code)
	}
}
