package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/golden"
	"github.com/cra-dev/cra/kb"
)

func TestDatasetsCommands(t *testing.T) {
	home := newHome(t)
	r := historyRepo(t)
	mustRun(t, home, "bootstrap", r.Dir)
	// The repository held out: its one commit is in validation whatever the
	// temporary path it lives at hashes to.
	mustRun(t, home, "curate-data", "--name", "ds", "--holdout-repos", r.Dir)

	created := regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)
	list := created.ReplaceAllString(mustRun(t, home, "datasets", "list"), "CREATED")
	golden.Assert(t, filepath.Join("testdata", "datasets", "list.golden"), []byte(list))
	show := created.ReplaceAllString(mustRun(t, home, "datasets", "show", "ds"), "CREATED")
	show = strings.ReplaceAll(show, kb.CanonicalPath(r.Dir), "REPO")
	golden.Assert(t, filepath.Join("testdata", "datasets", "show.golden"), []byte(show))

	out := filepath.Join(t.TempDir(), "export")
	var m struct {
		Files []struct {
			Path string `json:"path"`
			Rows int    `json:"rows"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, home, "--json", "datasets", "export", "ds", "--out", out)), &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Files) == 0 {
		t.Fatal("no files exported")
	}
	if res := cra(t, home, "", "datasets", "inspect", out); res.code != exitOK || !strings.Contains(res.stdout, "every file matches the manifest") {
		t.Errorf("inspect: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	jsonl := filepath.Join(t.TempDir(), "jsonl")
	mustRun(t, home, "datasets", "export", "ds", "--format", "jsonl", "--out", jsonl)
	if _, err := os.Stat(filepath.Join(jsonl, m.Files[0].Path[:len(m.Files[0].Path)-len("parquet")]+"jsonl")); err != nil {
		t.Errorf("the JSONL export lacks the Parquet export's shard: %v", err)
	}

	// Damage: inspect exits 1 naming the file.
	os.WriteFile(filepath.Join(out, filepath.FromSlash(m.Files[0].Path)), []byte("garbage"), 0o644) //nolint:errcheck
	if res := cra(t, home, "", "datasets", "inspect", out); res.code != exitFailures || !strings.Contains(res.stdout, m.Files[0].Path) {
		t.Errorf("inspect of a damaged export: exit %d\n%s", res.code, res.stdout)
	}
	if res := cra(t, home, "", "datasets", "show", "nope"); res.code != exitUsage || !strings.Contains(res.stderr, "cra datasets list") {
		t.Errorf("unknown dataset: exit %d, %q", res.code, res.stderr)
	}
	if res := cra(t, home, "", "datasets", "export", "ds", "--out", out); res.code == exitOK {
		t.Error("export into a non-empty directory succeeded")
	}
}
