package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/kb"
)

// Every exit path the README and `cra --help` document, one row each:
// 0 done, 1 some inputs failed, 2 usage, configuration or store error
// (nothing done), 130 interrupted.
func TestEveryDocumentedExitPath(t *testing.T) {
	t.Parallel()
	r := clitest.HistoryRepo(t)
	fresh := func(t *testing.T) env { return env{newHome(t)} }
	for _, tc := range []struct {
		name   string
		setup  func(t *testing.T) env
		args   func(e env) []string
		code   int
		stderr string
	}{
		{"done", fresh, func(env) []string { return []string{"status"} }, exitOK, ""},
		{"done: a batch", fresh, func(env) []string { return []string{"bootstrap", r.Dir} }, exitOK, ""},
		{"usage: unknown command", fresh, func(env) []string { return []string{"frobnicate"} }, exitUsage, "unknown command"},
		{"usage: bad flag", fresh, func(env) []string { return []string{"index", "--nope", r.Dir} }, exitUsage, "nope"},
		{"usage: missing argument", fresh, func(env) []string { return []string{"bootstrap"} }, exitUsage, "at least one repository"},
		{"usage: negative --wait", fresh, func(env) []string { return []string{"bootstrap", "--wait", "-1s", r.Dir} }, exitUsage, "--wait"},
		{"usage: home is a file", func(t *testing.T) env {
			f := filepath.Join(t.TempDir(), "file")
			os.WriteFile(f, []byte("x"), 0o644)
			return env{f}
		}, func(env) []string { return []string{"init"} }, exitUsage, "is a file"},
		{"config: invalid config.toml (status)", badConfig, func(env) []string { return []string{"status"} }, exitUsage, "config"},
		{"config: invalid config.toml (batch)", badConfig, func(env) []string { return []string{"bootstrap", r.Dir} }, exitUsage, "config"},
		{"store: home not initialised", func(t *testing.T) env { return env{filepath.Join(t.TempDir(), "none")} },
			func(env) []string { return []string{"sql", "select 1"} }, exitUsage, "cra init"},
		{"store: locked by another cra", func(t *testing.T) env {
			e := fresh(t)
			s, err := kb.Open(context.Background(), e.home, kb.Raw, kb.Options{Write: true, Command: "cra bootstrap"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return e
		}, func(env) []string { return []string{"sql", "--wait", "0", "--write", "select 1"} }, exitUsage, "holds raw.duckdb"},
		{"store: newer than this cra", func(t *testing.T) env {
			e := fresh(t)
			mustRun(t, e.home, "sql", "--write", "insert into raw.schema_migrations (version, name) values (999, 'future')")
			return e
		}, func(env) []string { return []string{"status"} }, exitUsage, "newer"},
		{"usage: SQL error", fresh, func(env) []string { return []string{"sql", "select * from nope"} }, exitUsage, "nope"},
		{"usage: dataset not found", fresh, func(env) []string { return []string{"datasets", "show", "nope"} }, exitUsage, "nope"},
		{"usage: curate-data on an empty home", fresh, func(env) []string { return []string{"curate-data"} }, exitUsage, "cra bootstrap"},
		{"usage: export into a non-empty directory", func(t *testing.T) env {
			e := fresh(t)
			mustRun(t, e.home, "bootstrap", r.Dir)
			clitest.TrainAll(t, e.home)
			mustRun(t, e.home, "curate-data", "--name", "d")
			os.WriteFile(filepath.Join(e.home, "exports", "taken"), nil, 0o644)
			return e
		}, func(e env) []string {
			return []string{"datasets", "export", "d", "--out", filepath.Join(e.home, "exports")}
		}, exitUsage, "not empty"},
		{"preflight: the model server is down", func(t *testing.T) env {
			e := env{filepath.Join(t.TempDir(), "home")}
			mustRun(t, e.home, "init", "--provider", "ollama", "--base-url", "http://127.0.0.1:1", "--coding-model", "c:1b", "--reasoning-model", "r:1b")
			mustRun(t, e.home, "index", r.Dir)
			return e
		}, func(env) []string { return []string{"plan", "--repo", r.Dir, "a task"} }, exitUsage, "model r:1b at http://127.0.0.1:1 (ollama) did not answer"},
		{"usage: eval --stages unknown", fresh, func(env) []string { return []string{"eval", "--stages", "scope,bogus"} }, exitUsage, "--stages bogus"},
		{"failed input: not a repository", fresh, func(env) []string { return []string{"bootstrap", r.Dir, os.TempDir()} }, exitFailures, "1 of 2 inputs failed"},
		{"failed input: busy repository", func(t *testing.T) env {
			e := fresh(t)
			l, err := kb.LockInput(context.Background(), e.home, "index", kb.CanonicalPath(r.Dir), "cra index", 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Release() })
			return e
		}, func(env) []string { return []string{"index", r.Dir} }, exitFailures, "1 of 1 inputs failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := tc.setup(t)
			res := cra(t, e.home, "", tc.args(e)...)
			if res.code != tc.code || !strings.Contains(res.stderr, tc.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", res.code, res.stderr, tc.code, tc.stderr)
			}
		})
	}

	// Interrupted: a batch whose context is cancelled (what SIGINT does).
	t.Run("interrupted", func(t *testing.T) {
		home := newHome(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var out, errb strings.Builder
		code := Run(ctx, []string{"--home", home, "bootstrap", r.Dir}, strings.NewReader(""), &out, &errb)
		if code != exitInterrupted || !strings.Contains(errb.String(), "interrupted") {
			t.Errorf("exit %d, stderr %q; want 130", code, errb.String())
		}
	})
}

// env is where one exit-path case runs.
type env struct{ home string }

func badConfig(t *testing.T) env {
	home := newHome(t)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("[index]\nmax_file_bytes = \"big\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return env{home}
}
