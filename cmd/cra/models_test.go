package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/fakellm"
)

func TestModelsCheck(t *testing.T) {
	srv := fakellm.New(t, fakellm.Reply{Text: "ok"}, fakellm.Reply{Status: 404})
	home := newHome(t)
	mustRun(t, home, "init", "--provider", "ollama", "--base-url", srv.OllamaURL(),
		"--coding-model", "good:1b", "--reasoning-model", "missing:1b")
	res := cra(t, home, "", "--json", "models", "check")
	if res.code != exitFailures {
		t.Fatalf("exit %d, want 1 (one model missing)\n%s%s", res.code, res.stdout, res.stderr)
	}
	var out struct {
		Checks   []llm.ModelCheck `json:"checks"`
		Error    string           `json:"error"`
		ExitCode int              `json:"exit_code"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
		t.Fatal(err)
	}
	if out.Error != "1 of 2 inputs failed" || out.ExitCode != exitFailures {
		t.Errorf("error %q, exit_code %d", out.Error, out.ExitCode)
	}
	checks := out.Checks
	if len(checks) != 2 || !checks[0].OK || checks[0].Model != "good:1b" || checks[1].OK ||
		!strings.Contains(checks[1].Error, "ollama pull missing:1b") {
		t.Errorf("checks %+v: want good:1b answering and missing:1b failing with the pull advice", checks)
	}
	if got := srv.Requests(); len(got) != 2 {
		t.Errorf("%d requests, want one per distinct model", len(got))
	}
}
