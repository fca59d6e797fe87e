package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/shards"
)

func TestShardFlagsParse(t *testing.T) {
	a := &app{}
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	for _, c := range []struct {
		name string
		args []string
		env  map[string]string
		want shards.Shard
		err  string // a usage error containing this; "" for none
	}{
		{"flag", []string{"--shard", "1/3"}, nil, shards.Shard{K: 1, N: 3}, ""},
		{"flag with spaces", []string{"--shard", " 0/1 "}, nil, shards.Shard{K: 0, N: 1}, ""},
		{"flag over env", []string{"--shard", "0/2"}, map[string]string{"JOB_COMPLETION_INDEX": "4", "CRA_SHARD_COUNT": "5"}, shards.Shard{K: 0, N: 2}, ""},
		{"env", nil, map[string]string{"JOB_COMPLETION_INDEX": "4", "CRA_SHARD_COUNT": "5"}, shards.Shard{K: 4, N: 5}, ""},
		{"count flag over env", []string{"--shard-count", "8"}, map[string]string{"JOB_COMPLETION_INDEX": "7", "CRA_SHARD_COUNT": "5"}, shards.Shard{K: 7, N: 8}, ""},
		{"index without count", nil, map[string]string{"JOB_COMPLETION_INDEX": "1"}, shards.Shard{}, "CRA_SHARD_COUNT"},
		{"count without index", []string{"--shard-count", "3"}, nil, shards.Shard{}, "JOB_COMPLETION_INDEX"},
		{"no shard at all", nil, nil, shards.Shard{}, "--shard K/N"},
		{"K = N", []string{"--shard", "2/2"}, nil, shards.Shard{}, "from 0 to 1"},
		{"K > N from env", nil, map[string]string{"JOB_COMPLETION_INDEX": "5", "CRA_SHARD_COUNT": "5"}, shards.Shard{}, "from 0 to 4"},
		{"N = 0", []string{"--shard", "0/0"}, nil, shards.Shard{}, "at least 1"},
		{"malformed", []string{"--shard", "1-3"}, nil, shards.Shard{}, "K/N"},
		{"malformed count", nil, map[string]string{"JOB_COMPLETION_INDEX": "0", "CRA_SHARD_COUNT": "many"}, shards.Shard{}, "CRA_SHARD_COUNT"},
	} {
		args := append([]string{"--out", "d"}, c.args...)
		got, err := parseWith(t, a.shardsExportCommand(), func(cmd *cli.Command) (shardsExportOptions, error) {
			return parseShardsExport(cmd, env(c.env))
		}, args...)
		switch {
		case c.err == "" && (err != nil || got.shard != c.want || got.out != "d"):
			t.Errorf("%s: %+v, %v; want %v", c.name, got, err, c.want)
		case c.err != "" && (err == nil || !usage.Is(err) || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want a usage error saying %q", c.name, err, c.err)
		}
	}
	if _, err := parseWith(t, a.shardsExportCommand(), func(cmd *cli.Command) (shardsExportOptions, error) {
		return parseShardsExport(cmd, env(nil))
	}, "--shard", "0/1"); err == nil || !usage.Is(err) || !strings.Contains(err.Error(), "--out") {
		t.Errorf("no --out: %v", err)
	}
}

// The environment of an Indexed Job pod, through the whole CLI: a usage
// error (exit 2) without the count, for bootstrap as for export.
func TestShardEnvWithoutCountExits2(t *testing.T) {
	t.Setenv("JOB_COMPLETION_INDEX", "1")
	t.Setenv("CRA_SHARD_COUNT", "")
	home := newHome(t)
	for _, args := range [][]string{{"bootstrap", "r"}, {"index", "r"}, {"shards", "export", "--out", t.TempDir()}} {
		r := cra(t, home, "", args...)
		if r.code != 2 || !strings.Contains(r.stderr, "CRA_SHARD_COUNT") {
			t.Errorf("cra %v: exit %d, stderr %q; want 2 naming CRA_SHARD_COUNT", args, r.code, r.stderr)
		}
	}
}

// Two homes mine a shard each of two clones, export, and a third imports:
// it holds every task, and sql --shards answers the same without a home.
func TestShardsExportImportSQL(t *testing.T) {
	var repos []string
	// These origins fall in shards 0 and 1 of 2 (shards' pinned hash).
	for _, origin := range []string{"git@github.com:cra-dev/cra.git", "https://github.com/psf/requests.git"} {
		r := clitest.HistoryRepo(t)
		r.Git("remote", "add", "origin", origin)
		repos = append(repos, r.Dir)
	}
	dir := filepath.Join(t.TempDir(), "shared")
	for k := range 2 {
		home := newHome(t)
		out := mustRun(t, home, append([]string{"bootstrap", "--shard", []string{"0/2", "1/2"}[k]}, repos...)...)
		if !strings.Contains(out, "of 2 repositories") || !strings.Contains(out, repos[k]) || strings.Contains(out, repos[1-k]) {
			t.Fatalf("shard %d/2 mined:\n%s", k, out)
		}
		var sum shards.ExportSummary
		if err := json.Unmarshal([]byte(mustRun(t, home, "--json", "shards", "export", "--out", dir, "--shard", []string{"0/2", "1/2"}[k])), &sum); err != nil {
			t.Fatal(err)
		}
		if sum.Rows["synthetic_tasks"] != 1 {
			t.Errorf("shard %d exported %v", k, sum.Rows)
		}
	}
	union := newHome(t)
	mustRun(t, union, "shards", "import", dir)
	q := "select count(*) as tasks, count(distinct repo_path) as repos from synthetic_tasks"
	want := "tasks,repos\n2,2\n"
	if got := mustRun(t, union, "sql", "--format", "csv", q); got != want {
		t.Errorf("imported home: %q, want %q", got, want)
	}
	if got := mustRun(t, newHome(t), "sql", "--shards", dir, "--format", "csv", q); got != want {
		t.Errorf("sql --shards: %q, want %q", got, want)
	}
	if r := cra(t, union, "", "sql", "--shards", dir, "--write", q); r.code != 2 {
		t.Errorf("sql --shards --write: exit %d, want 2", r.code)
	}
}
