package curate_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/clitest"
)

// TestDatasetsShowReport builds two versions of a dataset with curate-data
// (v1 two stages, v2 all six, the repository held out both times) and
// writes the report of each through `cra datasets show --report`.
func TestDatasetsShowReport(t *testing.T) {
	t.Parallel()
	home := cli.NewHome(t)
	r := clitest.HistoryRepo(t)
	cli.MustRun(t, home, "bootstrap", r.Dir)
	cli.MustRun(t, home, "curate-data", "--name", "ds", "--stages", "implement,plan", "--holdout-repos", r.Dir, "--validation-only")
	cli.MustRun(t, home, "curate-data", "--name", "ds", "--holdout-repos", r.Dir, "--validation-only")

	dir := filepath.Join(t.TempDir(), "report-v2")
	out := cli.MustRun(t, home, "datasets", "show", "ds@2", "--report", dir)
	md, html := filepath.Join(dir, "report.md"), filepath.Join(dir, "report.html")
	if !strings.Contains(out, "dataset ds@2") || !strings.Contains(out, "report:\n  "+md+"\n  "+html+"\n") {
		t.Errorf("show --report printed\n%s\nwant the version, then the paths written", out)
	}
	report := readText(t, md)
	for _, want := range []string{"# Dataset ds@2", "## What changed since v1", "4 examples added, 0 examples removed",
		"| scope | sft | validation | 0 | 1 | +1 |", "| implement | sft | validation | 1 | 1 | 0 |",
		"| scope | sft | 1 | 0 | 0 | 0 |", "| implement | sft | 0 | 0 | 1 | 0 |", "context window of 32,768 tokens",
		// Every repository held out: the report flags what a reviewer would.
		"## Warnings", "`implement-sft` has no train rows", "Every example comes from one repository", "1 repository held out whole"} {
		if !strings.Contains(report, want) {
			t.Errorf("report.md lacks %q:\n%s", want, report)
		}
	}
	page := readText(t, html)
	if n := strings.Count(page, "<svg"); n == 0 || n != strings.Count(page, "<figure") {
		t.Errorf("report.html: %d svg elements in %d figures", n, strings.Count(page, "<figure"))
	}
	for _, bad := range []string{"http://", "https://", "<script src"} {
		if strings.Contains(page, bad) {
			t.Errorf("report.html holds %q", bad)
		}
	}

	// NAME is the latest version; --json carries the paths.
	var shown struct {
		Name    string   `json:"name"`
		Version int      `json:"version"`
		Report  []string `json:"report"`
	}
	latest := filepath.Join(t.TempDir(), "latest")
	if err := json.Unmarshal([]byte(cli.MustRun(t, home, "--json", "datasets", "show", "ds", "--report", latest)), &shown); err != nil {
		t.Fatal(err)
	}
	if shown.Version != 2 || len(shown.Report) != 2 || shown.Report[0] != filepath.Join(latest, "report.md") {
		t.Errorf("--json %+v: want ds@2 with its two report paths", shown)
	}
	if readText(t, shown.Report[0]) != report {
		t.Error("the report of ds differs from the report of ds@2")
	}

	first := filepath.Join(t.TempDir(), "v1")
	cli.MustRun(t, home, "datasets", "show", "ds@1", "--report", first)
	if v1 := readText(t, filepath.Join(first, "report.md")); !strings.Contains(v1, "First version of ds") {
		t.Errorf("report of ds@1 does not say it is the first version:\n%s", v1)
	}

	// No report for a version that does not exist, and no directory either.
	missing := filepath.Join(t.TempDir(), "missing")
	if res := cli.Cra(t, home, "", "datasets", "show", "ds@3", "--report", missing); res.Code != clitest.ExitUsage || !strings.Contains(res.Stderr, "1, 2") {
		t.Errorf("ds@3: exit %d, %q; want 2 listing the versions", res.Code, res.Stderr)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a report of a missing version created %s", missing)
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
