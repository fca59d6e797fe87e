package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/internal/clitest"
)

// commandPaths is every command cra runs, as the words that name it
// ("datasets show"), walked from the command tree cli sets up (its own
// help and completion commands included): a new command is in it
// without anyone listing it.
func commandPaths(t *testing.T) []string {
	t.Helper()
	a := &app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	root := a.rootCommand()
	setUsageErrors(root)
	if err := root.Run(context.Background(), []string{"cra", "--help"}); err != nil {
		t.Fatal(err)
	}
	var paths []string
	var walk func(prefix []string, cmd *cli.Command)
	walk = func(prefix []string, cmd *cli.Command) {
		for _, sub := range cmd.Commands {
			p := append(slices.Clone(prefix), sub.Name)
			paths = append(paths, strings.Join(p, " "))
			walk(p, sub)
		}
	}
	walk(nil, root)
	return paths
}

// cheapFailures makes each command fail at once — on a home never
// initialised, a home that is a file, a bad argument — with the exit code
// it gives (no args: only a bad flag fails it). A command missing here
// fails TestJSONErrorsForEveryCommand.
func cheapFailures(t *testing.T) map[string]struct {
	home func() string
	args []string
	code int
} {
	dir := t.TempDir()
	none := func() string { return filepath.Join(dir, "none") }
	file := func() string {
		f := filepath.Join(dir, "file")
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	type failure = struct {
		home func() string
		args []string
		code int
	}
	return map[string]failure{
		"init":                  {file, []string{"init"}, exitUsage},
		"index":                 {none, []string{"index", dir}, exitUsage},
		"bootstrap":             {none, []string{"bootstrap", dir}, exitUsage},
		"curate-data":           {none, []string{"curate-data"}, exitUsage},
		"distill":               {none, []string{"distill"}, exitUsage},
		"datasets":              {none, []string{"datasets", "nope"}, exitUsage},
		"datasets list":         {none, []string{"datasets", "list"}, exitUsage},
		"datasets show":         {none, []string{"datasets", "show", "d"}, exitUsage},
		"datasets export":       {none, []string{"datasets", "export", "d"}, exitUsage},
		"datasets inspect":      {none, []string{"datasets", "inspect", filepath.Join(dir, "no-export")}, exitUsage},
		"datasets prune":        {none, []string{"datasets", "prune", "d", "--keep", "1"}, exitUsage},
		"models":                {none, []string{"models", "nope"}, exitUsage},
		"models check":          {none, []string{"models", "check", "extra"}, exitUsage},
		"enrich":                {none, []string{"enrich", dir}, exitUsage},
		"plan":                  {none, []string{"plan", "--repo", dir, "a task"}, exitUsage},
		"ask":                   {none, []string{"ask", "--repo", dir, "a question"}, exitUsage},
		"solve":                 {none, []string{"solve", "--repo", dir, "a task"}, exitUsage},
		"eval":                  {none, []string{"eval"}, exitUsage},
		"train-plan":            {none, []string{"train-plan"}, exitUsage},
		"sql":                   {none, []string{"sql", "select 1"}, exitUsage},
		"shards":                {none, []string{"shards", "nope"}, exitUsage},
		"shards export":         {none, []string{"shards", "export", "--out", dir, "--shard", "0/1"}, exitUsage},
		"shards import":         {none, []string{"shards", "import", filepath.Join(dir, "no-shards")}, exitUsage},
		"status":                {none, []string{"status"}, exitUsage},
		"compact":               {none, []string{"compact"}, exitUsage},
		"adapters":              {none, []string{"adapters", "nope"}, exitUsage},
		"adapters add":          {none, []string{"adapters", "add", "a"}, exitUsage},
		"adapters list":         {none, []string{"adapters", "list", "extra"}, exitUsage},
		"adapters show":         {none, []string{"adapters", "show"}, exitUsage},
		"adapters serve-config": {none, []string{"adapters", "serve-config", "--server", "nope"}, exitUsage},
		"adapters eval":         {none, []string{"adapters", "eval"}, exitUsage},
		"adapters promote":      {none, []string{"adapters", "promote"}, exitUsage},
		"adapters rollback":     {none, []string{"adapters", "rollback"}, exitUsage},
		"completion":            {none, []string{"completion", "nosuchshell"}, exitUsage},
		"help":                  {none, []string{"help", "nosuchcommand"}, exitUsage},
		// Nothing fails these but a bad flag, tried for every command.
		"version":         {none, nil, 0},
		"completion bash": {none, nil, 0},
		"completion zsh":  {none, nil, 0},
		"completion fish": {none, nil, 0},
		"completion pwsh": {none, nil, 0},
	}
}

// With --json, every command's failure is one JSON object on stdout,
// {"error": ..., "exit_code": N}, with the exit code and message it has
// without --json, and nothing else there: whether --json comes before
// the command or after it, whether cra could parse the command line (a
// bad flag) or not.
func TestJSONErrorsForEveryCommand(t *testing.T) {
	failures := cheapFailures(t)
	for _, path := range commandPaths(t) {
		words := strings.Fields(path)
		f, ok := failures[path]
		if !ok {
			t.Errorf("cra %s: no failure to try: add one to cheapFailures", path)
			continue
		}
		badFlag := append(slices.Clone(words), "--no-such-flag")
		for _, tc := range []struct {
			name string
			home string
			args []string
			code int
		}{
			{"fails", f.home(), f.args, f.code},
			{"bad flag", f.home(), badFlag, exitUsage},
		} {
			if tc.args == nil {
				continue
			}
			t.Run(path+"/"+tc.name, func(t *testing.T) {
				plain := cra(t, tc.home, "", tc.args...)
				if plain.code != tc.code {
					t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", plain.code, tc.code, plain.stdout, plain.stderr)
				}
				msg := strings.TrimSuffix(strings.TrimPrefix(plain.stderr[strings.LastIndex(plain.stderr, "cra: "):], "cra: "), "\n")
				for _, args := range [][]string{append([]string{"--json"}, tc.args...), append(slices.Clone(tc.args), "--json")} {
					res := cra(t, tc.home, "", args...)
					if res.code != plain.code {
						t.Errorf("cra %s: exit %d, without --json %d", strings.Join(args, " "), res.code, plain.code)
					}
					got := clitest.OneJSONObject(t, res.stdout)
					if got["error"] != msg || got["exit_code"] != float64(plain.code) || len(got) != 2 {
						t.Errorf("cra %s: stdout %s\nwant error %q, exit_code %d", strings.Join(args, " "), res.stdout, msg, plain.code)
					}
				}
			})
		}
	}
}

// A command that printed its summary and then failed (some inputs did)
// prints one object: the summary's fields, then "error" and "exit_code".
func TestJSONSummaryOfAFailureCarriesTheError(t *testing.T) {
	home := newHome(t)
	r := clitest.HistoryRepo(t)
	notRepo := t.TempDir()
	res := cra(t, home, "", "--json", "bootstrap", notRepo, r.Dir)
	got := clitest.OneJSONObject(t, res.stdout)
	if res.code != exitFailures || got["error"] != "1 of 2 inputs failed" || got["exit_code"] != float64(exitFailures) {
		t.Errorf("bootstrap: exit %d, %s", res.code, res.stdout)
	}
	if repos, _ := got["repos"].([]any); len(repos) != 2 || got["failed"] != float64(1) {
		t.Errorf("bootstrap: the summary is not whole: %s", res.stdout)
	}

	down := filepath.Join(t.TempDir(), "home")
	mustRun(t, down, "init", "--provider", "ollama", "--base-url", "http://127.0.0.1:1", "--coding-model", "c:1b", "--reasoning-model", "r:1b")
	res = cra(t, down, "", "--json", "models", "check")
	got = clitest.OneJSONObject(t, res.stdout)
	checks, _ := got["checks"].([]any)
	if res.code != exitFailures || len(checks) == 0 || got["exit_code"] != float64(exitFailures) || !strings.Contains(got["error"].(string), "inputs failed") {
		t.Errorf("models check: exit %d, %s", res.code, res.stdout)
	}
}

func TestWithError(t *testing.T) {
	const fields = `  "error": "it \"broke\"",` + "\n" + `  "exit_code": 1`
	for _, tc := range []struct{ name, doc, want string }{
		{"no document", "", "{\n" + fields + "\n}\n"},
		{"an empty object", "{}\n", "{\n" + fields + "\n}\n"},
		{"an object", "{\n  \"a\": 1,\n  \"b\": [\n    2\n  ]\n}\n", "{\n  \"a\": 1,\n  \"b\": [\n    2\n  ],\n" + fields + "\n}\n"},
		{"a list", "[\n  1\n]\n", "{\n" + fields + ",\n  \"result\": [\n    1\n  ]\n}\n"},
		{"null", "null\n", "{\n" + fields + ",\n  \"result\": null\n}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := string(withError([]byte(tc.doc), `it "broke"`, 1))
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			clitest.OneJSONObject(t, got)
		})
	}
}

func TestJSONInArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"status"}, false},
		{[]string{"--json", "status"}, true},
		{[]string{"status", "-json"}, true},
		{[]string{"status", "--json=true"}, true},
		{[]string{"--json", "status", "--json=false"}, false},
		{[]string{"sql", "--", "--json"}, false},
		{[]string{"solve", "json"}, false},
		{[]string{"--jsonl", "status"}, false},
	} {
		if got := jsonInArgs(tc.args); got != tc.want {
			t.Errorf("jsonInArgs(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}

// A run that failed before it had inputs says what stopped it, never "0
// of 0 inputs failed".
func TestPartialErrorMessage(t *testing.T) {
	for _, tc := range []struct {
		err  partialError
		want string
	}{
		{partialError{failed: 1, total: 2}, "1 of 2 inputs failed"},
		{partialError{failed: 1, total: 1, why: "the tests failed"}, "1 of 1 inputs failed: the tests failed"},
		{partialError{why: "no usable meta plan"}, "no usable meta plan"},
		{partialError{}, "failed before any input was done (see the summary)"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.err, got, tc.want)
		}
	}
}
