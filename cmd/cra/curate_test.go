package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/golden"
)

func TestCurateDataCommand(t *testing.T) {
	home := newHome(t)
	r := historyRepo(t)
	r.Write("app/api.py", "from app.store import Store\n\n\ndef handler(key):\n    return Store().get(key, 'none')\n")
	r.Commit("Return none from handler when Store.get finds nothing")
	mustRun(t, home, "bootstrap", r.Dir)

	var sum struct {
		Dataset  string                    `json:"dataset"`
		Tasks    int                       `json:"tasks"`
		Examples map[string]map[string]int `json:"examples"`
		Dropped  map[string]int            `json:"dropped"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, home, "--json", "curate-data", "--name", "first")), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Dataset != "first" || sum.Tasks != 2 {
		t.Fatalf("summary %+v: want dataset first from 2 tasks", sum)
	}
	stored := mustRun(t, home, "sql", "--format", "csv",
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

	out := mustRun(t, home, "curate-data", "--name", "scoped", "--stages", "implement,plan", "--holdout-repos", r.Dir)
	golden.Assert(t, filepath.Join("testdata", "curate", "summary.golden"), []byte(out))
	if got := mustRun(t, home, "sql", "--format", "csv",
		"SELECT DISTINCT split FROM raw.training_examples WHERE dataset = 'scoped'"); got != "split\nvalidation\n" {
		t.Errorf("a holdout repository's examples are in %q, want validation only", got)
	}

	if res := cra(t, home, "", "curate-data", "--stages", "review"); res.code != exitUsage || !strings.Contains(res.stderr, "synthetic stages are") {
		t.Errorf("unknown stage: exit %d, stderr %q", res.code, res.stderr)
	}
	if res := cra(t, home, "", "curate-data", "--source", "logged"); res.code != exitUsage {
		t.Errorf("--source logged: exit %d, stderr %q", res.code, res.stderr)
	}
}
