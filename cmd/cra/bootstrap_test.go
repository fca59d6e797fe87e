package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cra-dev/cra/bootstrap"
	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/golden"
)

type bootstrapSummary struct {
	RunID int64 `json:"run_id"`
	Repos []struct {
		Repo     string         `json:"repo"`
		Status   string         `json:"status"`
		Error    string         `json:"error"`
		Indexed  bool           `json:"indexed"`
		Seen     int            `json:"seen"`
		Verified int            `json:"verified"`
		Outcomes map[string]int `json:"outcomes"`
	} `json:"repos"`
	Funnel []struct {
		Step      string `json:"step"`
		Rejected  int    `json:"rejected"`
		Remaining int    `json:"remaining"`
	} `json:"funnel"`
	Failed int `json:"failed"`
}

func TestBootstrapCommand(t *testing.T) {
	home := newHome(t)
	r := clitest.HistoryRepo(t)
	var first bootstrapSummary
	if err := json.Unmarshal([]byte(mustRun(t, home, "--json", "bootstrap", "--jobs", "2", r.Dir)), &first); err != nil {
		t.Fatal(err)
	}
	if len(first.Repos) != 1 || !first.Repos[0].Indexed || first.Repos[0].Seen != 4 || first.Repos[0].Verified != 1 {
		t.Fatalf("first run: %+v", first)
	}
	if o := first.Repos[0].Outcomes; o["bot"] != 1 || o["root_commit"] != 1 || o["verified"] != 1 {
		t.Errorf("outcomes %v: want one root commit, one bot commit, one verified", o)
	}
	if n := len(first.Funnel); n == 0 || first.Funnel[0].Step != "seen" || first.Funnel[n-1].Step != "verified" || first.Funnel[n-1].Remaining != 1 {
		t.Errorf("funnel %+v: want seen first and 1 verified last", first.Funnel)
	}

	// The index it made first is the knowledge base cra index keeps.
	if got := mustRun(t, home, "sql", "--format", "csv", "SELECT count(*) FROM curated.files"); got != "count_star()\n3\n" {
		t.Errorf("curated files after bootstrap: %q", got)
	}
	got := mustRun(t, home, "sql", "--format", "csv",
		"SELECT stage, json_extract_string(target, '$.edits[0].file') FROM raw.synthetic_targets ORDER BY stage")
	if !strings.Contains(got, "implement,app/store.py") || strings.Count(got, "\n") != 7 {
		t.Errorf("synthetic_targets:\n%s", got)
	}

	// A new commit: only it is walked; the human summary shows the funnel.
	r.Write("app/api.py", "from app.store import Store\n\n\ndef handler(key):\n    return Store().get(key, 'none')\n")
	r.Commit("Return none from handler when Store.get finds nothing")
	out := mustRun(t, home, "bootstrap", r.Dir)
	out = strings.ReplaceAll(out, r.Dir, "REPO")
	out = regexp.MustCompile(`\d+\.\d\n`).ReplaceAllString(out, "S.S\n")
	out = regexp.MustCompile(`run \d+`).ReplaceAllString(out, "run N")
	out = regexp.MustCompile(` +`).ReplaceAllString(out, " ") // column widths follow the temp dir's name
	golden.Assert(t, filepath.Join("testdata", "bootstrap", "incremental.golden"), []byte(out))

	var again bootstrapSummary
	json.Unmarshal([]byte(mustRun(t, home, "--json", "bootstrap", r.Dir)), &again) //nolint:errcheck // checked below
	if len(again.Repos) != 1 || again.Repos[0].Status != "up_to_date" || again.Repos[0].Seen != 0 {
		t.Errorf("no-change run: %+v", again)
	}
	if n := mustRun(t, home, "sql", "--format", "csv", "SELECT count(*) FROM raw.synthetic_tasks"); n != "count_star()\n2\n" {
		t.Errorf("synthetic_tasks after three runs: %q, want 2 (no duplicates)", n)
	}
}

func TestBootstrapExitCodes(t *testing.T) {
	home := newHome(t)
	r := clitest.HistoryRepo(t)
	if res := cra(t, home, "", "bootstrap"); res.code != exitUsage || !strings.Contains(res.stderr, "at least one repository") {
		t.Errorf("no args: exit %d, stderr %q", res.code, res.stderr)
	}
	if res := cra(t, home, "", "bootstrap", "--since", "yesterday", r.Dir); res.code != exitUsage || !strings.Contains(res.stderr, "YYYY-MM-DD") {
		t.Errorf("bad --since: exit %d, stderr %q", res.code, res.stderr)
	}
	notRepo := t.TempDir()
	os.WriteFile(filepath.Join(notRepo, "x.py"), []byte("x = 1\n"), 0o644) //nolint:errcheck // the test fails below if missing
	res := cra(t, home, "", "--json", "bootstrap", notRepo, r.Dir)
	if res.code != exitFailures || !strings.Contains(res.stderr, "1 of 2 inputs failed") {
		t.Fatalf("one bad repo: exit %d, stderr %q", res.code, res.stderr)
	}
	var sum bootstrapSummary
	if err := json.Unmarshal([]byte(res.stdout), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 1 || sum.Repos[0].Status != "failed" || !strings.Contains(sum.Repos[0].Error, "not a git repository") || sum.Repos[1].Verified != 1 {
		t.Errorf("summary %+v", sum)
	}
	if res := cra(t, home, "", "bootstrap", "--since", "2030-01-01", r.Dir); res.code != exitOK {
		t.Errorf("--since in the future: exit %d, stderr %q", res.code, res.stderr)
	}
}

// cra status shows each kind's last run: its status, duration and what it did.
func TestStatusShowsTheLastRunOfEachKind(t *testing.T) {
	home := newHome(t)
	r := clitest.HistoryRepo(t)
	mustRun(t, home, "bootstrap", r.Dir)
	var st struct {
		LastRuns []struct {
			Kind    string   `json:"kind"`
			Count   int      `json:"count"`
			Status  string   `json:"status"`
			Seconds *float64 `json:"seconds"`
			Detail  string   `json:"detail"`
		} `json:"last_runs"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, home, "--json", "status")), &st); err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, lr := range st.LastRuns {
		switch lr.Kind {
		case "bootstrap", "index":
			found[lr.Kind] = true
			if lr.Count != 1 || lr.Status != "ok" || lr.Seconds == nil || lr.Detail == "" {
				t.Errorf("%s: %+v; want one ok run with its duration and what it did", lr.Kind, lr)
			}
		}
	}
	if !found["bootstrap"] || !found["index"] {
		t.Errorf("last runs %+v lack index or bootstrap", st.LastRuns)
	}
	if !strings.Contains(mustRun(t, home, "status"), "commits mined") {
		t.Error("the human status does not say what the bootstrap run did")
	}
}

// A batch keeps the Go heap under its command's default unless the user
// set GOMEMLIMIT, which the runtime reads itself.
func TestMemoryLimitYieldsToGOMEMLIMIT(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	if got := memoryLimit(bootstrap.DefaultMemoryLimit); got != bootstrap.DefaultMemoryLimit {
		t.Errorf("without GOMEMLIMIT: %d, want %d", got, bootstrap.DefaultMemoryLimit)
	}
	t.Setenv("GOMEMLIMIT", "2GiB")
	if got := memoryLimit(bootstrap.DefaultMemoryLimit); got != 0 {
		t.Errorf("with GOMEMLIMIT: %d, want 0 (the runtime's)", got)
	}
}
