package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/clitest"
)

type indexSummary struct {
	Repos []struct {
		Repo         string         `json:"repo"`
		Status       string         `json:"status"`
		Error        string         `json:"error"`
		Files        int            `json:"files"`
		FilesChanged int            `json:"files_changed"`
		Commits      int            `json:"commits"`
		CommitsAdded int            `json:"commits_added"`
		SkipReasons  map[string]int `json:"skip_reasons"`
	} `json:"repos"`
	Failed int `json:"failed"`
}

func TestIndexCommandIsIncrementalAndQueryable(t *testing.T) {
	home := newHome(t)
	r := clitest.SmallRepo(t)
	var first indexSummary
	if err := json.Unmarshal([]byte(mustRun(t, home, "--json", "index", r.Dir)), &first); err != nil {
		t.Fatal(err)
	}
	if len(first.Repos) != 1 || first.Repos[0].Files != 2 || first.Repos[0].Commits != 2 || first.Repos[0].SkipReasons["binary"] != 1 {
		t.Fatalf("first run: %+v", first)
	}
	out := mustRun(t, home, "index", "--jobs", "1", r.Dir)
	if !strings.Contains(out, "REPO") || !strings.Contains(out, "skipped binary 1") {
		t.Errorf("human summary lacks the table or the skips:\n%s", out)
	}
	var again indexSummary
	json.Unmarshal([]byte(mustRun(t, home, "--json", "index", r.Dir)), &again) //nolint:errcheck // checked below
	if len(again.Repos) != 1 || again.Repos[0].FilesChanged != 0 || again.Repos[0].CommitsAdded != 0 {
		t.Errorf("re-run changed something: %+v", again)
	}
	got := mustRun(t, home, "sql", "--format", "csv", "SELECT qualified_name, calls, called_by FROM code_index ORDER BY 1")
	want := "qualified_name,calls,called_by\nhelper,[],\"[\"\"run\"\"]\"\nrun,\"[\"\"helper\"\"]\",[]\n"
	if got != want {
		t.Errorf("code_index:\n%s\nwant\n%s", got, want)
	}
	if runs := mustRun(t, home, "sql", "--format", "csv", "SELECT count(*) FROM raw.index_runs"); runs != "count_star()\n3\n" {
		t.Errorf("index_runs: %q", runs)
	}
}

func TestIndexExitCodes(t *testing.T) {
	home := newHome(t)
	r := clitest.SmallRepo(t)
	if res := cra(t, home, "", "index"); res.code != exitUsage || !strings.Contains(res.stderr, "at least one repository") {
		t.Errorf("no args: exit %d, stderr %q", res.code, res.stderr)
	}
	missing := filepath.Join(t.TempDir(), "gone")
	res := cra(t, home, "", "--json", "index", missing, r.Dir)
	if res.code != exitFailures || !strings.Contains(res.stderr, "1 of 2 inputs failed") {
		t.Fatalf("one bad repo: exit %d, stderr %q", res.code, res.stderr)
	}
	var sum indexSummary
	if err := json.Unmarshal([]byte(res.stdout), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 1 || sum.Repos[0].Status != "failed" || sum.Repos[1].Status != "ok" {
		t.Errorf("summary: %+v", sum)
	}
	if res := cra(t, home, "", "index", "--rev", "no-such-branch", r.Dir); res.code != exitFailures || !strings.Contains(res.stdout, "no-such-branch") {
		t.Errorf("bad --rev: exit %d\nstdout %s\nstderr %s", res.code, res.stdout, res.stderr)
	}
	if res := cra(t, filepath.Join(t.TempDir(), "nohome"), "", "index", r.Dir); res.code != exitUsage || !strings.Contains(res.stderr, "cra init") {
		t.Errorf("no home: exit %d, stderr %q", res.code, res.stderr)
	}
}
