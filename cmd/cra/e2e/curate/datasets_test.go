package curate_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/golden"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

func TestDatasetsCommands(t *testing.T) {
	t.Parallel()
	home := cli.NewHome(t)
	r := clitest.HistoryRepo(t)
	cli.MustRun(t, home, "bootstrap", r.Dir)
	// The repository held out: its one commit is in validation whatever the
	// temporary path it lives at hashes to (an evaluation set, on purpose).
	cli.MustRun(t, home, "curate-data", "--name", "ds", "--holdout-repos", r.Dir, "--validation-only")

	created := regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)
	list := created.ReplaceAllString(cli.MustRun(t, home, "datasets", "list"), "CREATED")
	golden.Assert(t, filepath.Join("testdata", "datasets", "list.golden"), []byte(list))
	show := created.ReplaceAllString(cli.MustRun(t, home, "datasets", "show", "ds"), "CREATED")
	show = strings.ReplaceAll(show, kb.CanonicalPath(r.Dir), "REPO")
	// The binary's version: make's build has its commit's, go build's
	// within a test none.
	version := strings.TrimSpace(strings.TrimPrefix(cli.MustRun(t, home, "version"), "cra version "))
	show = strings.Replace(show, "by cra "+version+")", "by cra VERSION)", 1)
	golden.Assert(t, filepath.Join("testdata", "datasets", "show.golden"), []byte(show))

	out := filepath.Join(t.TempDir(), "export")
	var m struct {
		Files []struct {
			Path string `json:"path"`
			Rows int    `json:"rows"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(cli.MustRun(t, home, "--json", "datasets", "export", "ds", "--out", out)), &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Files) == 0 {
		t.Fatal("no files exported")
	}
	if res := cli.Cra(t, home, "", "datasets", "inspect", out); res.Code != clitest.ExitOK || !strings.Contains(res.Stdout, "every file matches the manifest") {
		t.Errorf("inspect: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	jsonl := filepath.Join(t.TempDir(), "jsonl")
	cli.MustRun(t, home, "datasets", "export", "ds", "--format", "jsonl", "--out", jsonl)
	if _, err := os.Stat(filepath.Join(jsonl, m.Files[0].Path[:len(m.Files[0].Path)-len("parquet")]+"jsonl")); err != nil {
		t.Errorf("the JSONL export lacks the Parquet export's shard: %v", err)
	}

	// Damage: inspect exits 1 naming the file.
	os.WriteFile(filepath.Join(out, filepath.FromSlash(m.Files[0].Path)), []byte("garbage"), 0o644) //nolint:errcheck
	if res := cli.Cra(t, home, "", "datasets", "inspect", out); res.Code != clitest.ExitFailures || !strings.Contains(res.Stdout, m.Files[0].Path) {
		t.Errorf("inspect of a damaged export: exit %d\n%s", res.Code, res.Stdout)
	}
	if res := cli.Cra(t, home, "", "datasets", "show", "nope"); res.Code != clitest.ExitUsage || !strings.Contains(res.Stderr, "cra datasets list") {
		t.Errorf("unknown dataset: exit %d, %q", res.Code, res.Stderr)
	}
	if res := cli.Cra(t, home, "", "datasets", "export", "ds", "--out", out); res.Code == clitest.ExitOK {
		t.Error("export into a non-empty directory succeeded")
	}
}

// Layouts through the CLI: a dataset with sft, preference and kto rows
// exports in every layout that takes its kinds; openai refuses its kto rows
// with a usage error naming what would do, and writes them out with
// --kinds, warning on stderr of each split under OpenAI's 10 rows; the
// default directory names a layout other than trl; inspect
// reads every layout back.
func TestDatasetsExportLayouts(t *testing.T) {
	t.Parallel()
	home := cli.NewHome(t)
	at := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	sys, user := kb.Message{Role: "system", Content: "You plan."}, kb.Message{Role: "user", Content: "Plan the fix."}
	good, bad := kb.Message{Role: "assistant", Content: `{"steps": 1}`}, kb.Message{Role: "assistant", Content: "no"}
	var examples []kb.TrainingExample
	for i, split := range []string{kb.SplitTrain, kb.SplitValidation} {
		base := kb.TrainingExample{Stage: "plan", Source: "logged", Split: split, RepoPath: "/r", CreatedAt: at}
		sft, pair, kto := base, base, base
		sft.ID, sft.Kind, sft.Label, sft.Messages = fmt.Sprint("s", i), kb.KindSFT, kb.LabelPositive, []kb.Message{sys, user, good}
		pair.ID, pair.Kind, pair.Label, pair.Messages = fmt.Sprint("p", i), kb.KindPreference, kb.LabelPair, []kb.Message{sys, user}
		pair.Chosen, pair.Rejected, pair.Signal = []kb.Message{good}, []kb.Message{bad}, "coder_retry"
		kto.ID, kto.Kind, kto.Label, kto.Messages = fmt.Sprint("k", i), kb.KindKTO, kb.LabelNegative, []kb.Message{sys, user, bad}
		examples = append(examples, sft, pair, kto)
	}
	storetest.Dataset(t, home, "mix", examples)

	res := cli.Cra(t, home, "", "datasets", "export", "mix", "--layout", "openai")
	if res.Code != clitest.ExitUsage || !strings.Contains(res.Stderr, "--layout trl or axolotl") || !strings.Contains(res.Stderr, "--kinds sft,preference") {
		t.Errorf("openai export of kto rows: exit %d, %q; want 2 naming the layouts and --kinds", res.Code, res.Stderr)
	}
	res = cli.Cra(t, home, "", "datasets", "export", "mix", "--layout", "openai", "--format", "jsonl", "--kinds", "sft,preference")
	got := res.Stdout
	openai := filepath.Join(home, "exports", "mix-v1-openai-jsonl")
	if res.Code != clitest.ExitOK || !strings.Contains(got, "(openai layout): 4 rows in 4 files to "+openai) || !strings.Contains(got, "left out 2 kto rows (--kinds)") {
		t.Errorf("openai export with --kinds: exit %d\n%s%s", res.Code, got, res.Stderr)
	}
	// Every split has one row, fewer than OpenAI takes: each is named on
	// stderr.
	for _, w := range []string{"config plan-sft, split train: 1 row", "config plan-preference, split validation: 1 row"} {
		if !strings.Contains(res.Stderr, w) {
			t.Errorf("openai export of 1-row splits: stderr does not warn %q:\n%s", w, res.Stderr)
		}
	}
	if b, err := os.ReadFile(filepath.Join(openai, "plan", "preference", "train-00000-of-00001.jsonl")); err != nil ||
		!strings.HasPrefix(string(b), `{"input":{"messages":[{"role":"system"`) {
		t.Errorf("openai preference row: %.120s (%v)", b, err)
	}
	for _, layout := range []string{"trl", "axolotl"} {
		out := filepath.Join(t.TempDir(), layout)
		cli.MustRun(t, home, "datasets", "export", "mix", "--layout", layout, "--out", out)
		res := cli.Cra(t, home, "", "datasets", "inspect", out)
		if res.Code != clitest.ExitOK || !strings.Contains(res.Stdout, layout+" layout") || !strings.Contains(res.Stdout, "plan   kto         1      1") {
			t.Errorf("inspect %s: exit %d\n%s%s", layout, res.Code, res.Stdout, res.Stderr)
		}
	}
	if res := cli.Cra(t, home, "", "datasets", "inspect", openai); res.Code != clitest.ExitOK {
		t.Errorf("inspect openai: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
}
