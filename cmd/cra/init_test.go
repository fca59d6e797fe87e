package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cra-dev/cra/kb"
)

func TestInitCreatesHomeAndIsIdempotent(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	first := mustRun(t, home, "init")
	for _, p := range []string{"config.toml", "curated.duckdb", "raw.duckdb", "sessions", "exports"} {
		if _, err := os.Stat(filepath.Join(home, p)); err != nil {
			t.Errorf("init did not create %s: %v", p, err)
		}
	}
	if !strings.Contains(first, "(created)") {
		t.Errorf("first init output: %q", first)
	}
	cfg := filepath.Join(home, "config.toml")
	edited := "# mine\n[budget]\nreserved_tokens = 1000\n"
	if err := os.WriteFile(cfg, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := mustRun(t, home, "init"); !strings.Contains(out, "(kept)") {
		t.Errorf("second init output: %q", out)
	}
	if data, _ := os.ReadFile(cfg); string(data) != edited {
		t.Errorf("a second init rewrote the user's config.toml: %q", data)
	}
	// Done when: cra init && cra sql "select count(*) from raw.task_runs" prints 0.
	if out := mustRun(t, home, "sql", "select count(*) from raw.task_runs"); !strings.HasSuffix(out, "\n0\n") {
		t.Errorf("count after init: %q", out)
	}
}

func TestInitWritesModelsNonInteractively(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	t.Setenv("MY_TEACHER_KEY", "sk-secret-value-123")
	mustRun(t, home, "init", "--provider", "remote_api", "--base-url", "https://api.example.test/v1",
		"--coding-model", "coder-7b", "--reasoning-model", "thinker-7b", "--api-key-env", "MY_TEACHER_KEY")
	data, err := os.ReadFile(filepath.Join(home, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []string{`provider = "remote_api"`, `base_url = "https://api.example.test/v1"`,
		`coding = "coder-7b"`, `reasoning = "thinker-7b"`, `api_key_env = "MY_TEACHER_KEY"`} {
		if !strings.Contains(text, "\n"+want+"\n") {
			t.Errorf("config lacks %s", want)
		}
	}
	if strings.Contains(text, "sk-secret-value-123") {
		t.Fatal("the API key's value reached config.toml")
	}
	// Changing the models again keeps the rest and backs up the old file.
	mustRun(t, home, "init", "--coding-model", "coder-14b")
	data, _ = os.ReadFile(filepath.Join(home, "config.toml"))
	if !strings.Contains(string(data), "\ncoding = \"coder-14b\"\n") || !strings.Contains(string(data), "\nreasoning = \"thinker-7b\"\n") {
		t.Errorf("second init lost values:\n%s", data)
	}
	if _, err := os.Stat(filepath.Join(home, "config.toml.bak")); err != nil {
		t.Errorf("no backup: %v", err)
	}
}

func TestInitRefusesInvalidChoices(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	r := cra(t, home, "", "init", "--provider", "remote_api")
	if r.code != exitUsage || !strings.Contains(r.stderr, "models.api_key_env") || !strings.Contains(r.stderr, "config.toml") {
		t.Fatalf("%+v", r)
	}
	if _, err := os.Stat(filepath.Join(home, "config.toml")); err == nil {
		t.Fatal("an invalid config was written")
	}
}

func TestConfigErrorsNameFileKeyAndFixAndExit2(t *testing.T) {
	home := newHome(t)
	cfg := filepath.Join(home, "config.toml")
	if err := os.WriteFile(cfg, []byte("[budget]\nreserved_tokens = 99999\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := cra(t, home, "", "init")
	for _, want := range []string{cfg, "budget.reserved_tokens", "reserved_tokens must be < context_window", "fix:"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr %q lacks %q", r.stderr, want)
		}
	}
	if r.code != exitUsage {
		t.Errorf("exit %d, want %d", r.code, exitUsage)
	}
}

func TestStatusJSON(t *testing.T) {
	home := fixtureHome(t)
	var st struct {
		Home   string `json:"home"`
		Stores []struct {
			Kind    string `json:"kind"`
			Bytes   int64  `json:"bytes"`
			Version int    `json:"schema_version"`
			Tables  []struct {
				Table string `json:"table"`
				Rows  int64  `json:"rows"`
			} `json:"tables"`
		} `json:"stores"`
		LastRuns []struct {
			Kind  string  `json:"kind"`
			Count int64   `json:"count"`
			Last  *string `json:"last"`
		} `json:"last_runs"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, home, "--json", "status")), &st); err != nil {
		t.Fatal(err)
	}
	if st.Home != home || len(st.Stores) != 2 || st.Stores[1].Kind != "raw" || st.Stores[1].Bytes == 0 || st.Stores[1].Version != kb.LatestVersion(kb.Raw) {
		t.Fatalf("status: %+v", st)
	}
	counts := map[string]int64{}
	for _, tc := range st.Stores[1].Tables {
		counts[tc.Table] = tc.Rows
	}
	if counts["task_runs"] != 2 || counts["retrieval_llm_calls"] != 1 || counts["index_runs"] != 0 {
		t.Errorf("raw counts: %v", counts)
	}
	runs := map[string]string{}
	for _, r := range st.LastRuns {
		last := "never"
		if r.Last != nil {
			last = *r.Last
		}
		runs[r.Kind] = last
	}
	if runs["task:implement"] != "2026-11-02T11:30:00.25Z" || runs["task:plan"] != "2026-11-01T10:00:00Z" || runs["index"] != "never" {
		t.Errorf("last runs: %v", runs)
	}
	text := mustRun(t, home, "status")
	if !strings.Contains(text, "task_runs") || !strings.Contains(text, "task:implement") {
		t.Errorf("text status: %s", text)
	}
}

func TestHelpListsExitCodesAndCommands(t *testing.T) {
	r := cra(t, t.TempDir(), "", "--help")
	for _, want := range []string{"EXIT CODES", "130", "init", "sql", "status", "--home", "--json"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	if r.code != 0 {
		t.Errorf("--help exit %d", r.code)
	}
}

func TestCancelledContextExits130(t *testing.T) {
	home := newHome(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb strings.Builder
	code := Run(ctx, []string{"--home", home, "sql", "select 1"}, strings.NewReader(""), &out, &errb)
	if code != exitInterrupted || !strings.Contains(errb.String(), "interrupted") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}

func TestBadGlobalFlagsExit2(t *testing.T) {
	for _, args := range [][]string{{"--log-level", "loud", "status"}, {"--log-format", "xml", "status"}, {"nosuchcommand"}} {
		r := cra(t, t.TempDir(), "", args...)
		if r.code != exitUsage {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}
