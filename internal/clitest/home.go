package clitest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/eval"
	"github.com/cra-dev/cra/agent/eval/evaltest"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/kb"
)

// EvalHome is a home that mined repo, served by the fake model srv, with
// CalcHistory's test command; curate is added to its [curate] section.
func (c *CLI) EvalHome(t testing.TB, srv *fakellm.Server, repo, curate string) string {
	t.Helper()
	return c.EvalHomeWith(t, srv, repo, "test_command = \""+evaltest.CalcTestCommand+"\"\ntimeout_seconds = 60", curate)
}

// EvalHomeWith is EvalHome with testing as its [testing] keys.
func (c *CLI) EvalHomeWith(t testing.TB, srv *fakellm.Server, repo, testing, curate string) string {
	t.Helper()
	home := c.ModelHome(t, srv.OllamaURL())
	cfgPath := filepath.Join(home, "config.toml")
	cfg, _ := os.ReadFile(cfgPath)
	s := strings.Replace(string(cfg), "[testing]\n", "[testing]\n"+testing+"\n", 1)
	s = strings.Replace(s, "[curate]\n", "[curate]\n"+curate+"\n", 1)
	if err := os.WriteFile(cfgPath, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	c.MustRun(t, home, "bootstrap", repo)
	return home
}

// ModelHome is a new home whose models are served at baseURL by ollama's
// API: coding c:1b, reasoning r:1b, as `cra init --provider ollama
// --base-url URL --coding-model c:1b --reasoning-model r:1b` writes them
// (init's own tests run that), without the cost of init's store checks.
func (c *CLI) ModelHome(t testing.TB, baseURL string) string {
	t.Helper()
	home := c.NewHome(t)
	cfgPath := filepath.Join(home, "config.toml")
	cfg, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	s := string(cfg)
	for _, kv := range [][2]string{{`provider = "ollama"`, `provider = "ollama"`},
		{`base_url = "http://localhost:11434"`, fmt.Sprintf("base_url = %q", baseURL)},
		{`coding = "qwen3:1.7b"`, `coding = "c:1b"`}, {`reasoning = "qwen3:1.7b"`, `reasoning = "r:1b"`}} {
		if !strings.Contains(s, "\n"+kv[0]+"\n") {
			t.Fatalf("config.toml as init writes it has no line %s", kv[0])
		}
		s = strings.Replace(s, "\n"+kv[0]+"\n", "\n"+kv[1]+"\n", 1)
	}
	if err := os.WriteFile(cfgPath, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
}

// OracleFor makes srv answer from the ground truth of home's tasks, each
// stage wrong at rates.
func OracleFor(t testing.TB, srv *fakellm.Server, home string, rates map[string]float64) {
	t.Helper()
	srv.SetOracle(fakellm.Oracle{Answer: evaltest.Answer(HeldOutTasks(t, home)), ErrorRate: rates})
}

// HeldOutTasks are home's tasks, every repository held out.
func HeldOutTasks(t testing.TB, home string) []eval.Task {
	t.Helper()
	s, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	holdout, err := kb.SyntheticRepos(context.Background(), s.DB)
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := eval.Select(context.Background(), s.DB, eval.Selection{Split: eval.SplitAll, Rule: kb.NewSplitRule(config.Curate{}, holdout), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return tasks
}

// CopyHome is a copy of home (closed: no cra process running in it) in
// a new temporary directory: a test that needs several homes alike builds
// one and copies it, instead of indexing and mining the same history again.
func CopyHome(t testing.TB, home string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "home")
	if err := os.CopyFS(dst, os.DirFS(home)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// CopyHomeServedBy is CopyHome of a home whose models are served at
// from (its config.toml's base_url, as ModelHome writes it), served at to
// in the copy: a test copies a fixture's home and answers its model calls
// with a fake model of its own.
func CopyHomeServedBy(t testing.TB, home, from, to string) string {
	t.Helper()
	dst := CopyHome(t, home)
	SetConfig(t, dst, fmt.Sprintf("\nbase_url = %q\n", from), fmt.Sprintf("\nbase_url = %q\n", to))
	return dst
}

// SetConfig replaces old with new in home's config.toml, once; the test
// fails if old is not there.
func SetConfig(t testing.TB, home, old, new string) {
	t.Helper()
	cfgPath := filepath.Join(home, "config.toml")
	cfg, err := os.ReadFile(cfgPath)
	if err != nil || !strings.Contains(string(cfg), old) {
		t.Fatalf("%s has no %q (%v)", cfgPath, old, err)
	}
	if err := os.WriteFile(cfgPath, []byte(strings.Replace(string(cfg), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TrainAll sets [curate] validation_fraction = 0 in home: a test home
// mines a commit or two from a repository in a temporary directory, whose
// hashes change with every run, so under the default fraction its dataset
// is now and then validation only, and curate-data refuses it.
func TrainAll(t testing.TB, home string) {
	t.Helper()
	SetConfig(t, home, "[curate]\n", "[curate]\nvalidation_fraction = 0.0\n")
}
