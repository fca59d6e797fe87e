package datasets

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// withEvalOnlyStage is mixedExamples(n) plus a stage, "plan", whose rows of
// every kind are all in validation, as eval-derived rows are.
func withEvalOnlyStage(n int) []kb.TrainingExample {
	rows := mixedExamples(n)
	for _, e := range mixedExamples(n) {
		if e.Split != kb.SplitValidation {
			continue
		}
		e.ID, e.Stage, e.TargetID = "plan-"+e.ID, "plan", "plan-"+e.TargetID
		rows = append(rows, e)
	}
	return rows
}

var (
	snippetBlock = regexp.MustCompile("(?s)```(python|sh|yaml)\n(.*?)```")
	stubs, _     = filepath.Abs(filepath.Join("testdata", "stubs"))
)

// Every snippet of the card runs as it is, for a dataset with a config that
// has validation rows only, in every layout and format: the Python ones
// against stand-in datasets, transformers, trl and openai modules
// (testdata/stubs) that refuse what the real ones refuse, the shell ones
// (jq) in the export, the axolotl YAML checked for the keys axolotl
// requires.
func TestCardSnippetsRun(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	if out, err := exec.Command(python, "-c", "import yaml").CombinedOutput(); err != nil {
		t.Skipf("python3 has no yaml module: %s", out)
	}
	home := storetest.Home(t)
	storetest.Dataset(t, home, "mix", withEvalOnlyStage(48))
	raw, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, tc := range []struct{ layout, format string }{
		{LayoutTRL, FormatParquet}, {LayoutTRL, FormatJSONL},
		{LayoutAxolotl, FormatParquet}, {LayoutAxolotl, FormatJSONL},
		{LayoutOpenAI, FormatJSONL}, {LayoutOpenAI, FormatParquet},
	} {
		t.Run(tc.layout+"-"+tc.format, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			m, err := Export(context.Background(), raw.DB, kb.DatasetRef{Name: "mix"},
				ExportOptions{Layout: tc.layout, Format: tc.format, Kinds: layoutsKinds(tc.layout), Out: dir})
			if err != nil {
				t.Fatal(err)
			}
			if len(evalOnly(configs(m))) == 0 {
				t.Fatal("the fixture has no validation-only config")
			}
			readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
			if err != nil {
				t.Fatal(err)
			}
			ran := map[string]int{}
			for _, b := range snippetBlock.FindAllStringSubmatch(string(readme), -1) {
				lang, code := b[1], strings.ReplaceAll(b[2], "path/to/this/directory", dir)
				ran[lang]++
				switch lang {
				case "sh":
					runSnippet(t, dir, "bash", "-euo", "pipefail", "-c", code)
				case "python":
					runSnippet(t, dir, python, "-c", code)
				case "yaml":
					checkAxolotl(t, m, code)
				}
			}
			want := map[string][]string{LayoutTRL: {"python"}, LayoutAxolotl: {"yaml"}, LayoutOpenAI: {"python", "sh"}}[tc.layout]
			if tc.layout == LayoutOpenAI && tc.format == FormatParquet {
				want = nil
			}
			for _, lang := range want {
				if ran[lang] == 0 {
					t.Errorf("the card has no %s snippet to run", lang)
				}
			}
		})
	}
}

// runSnippet runs a card snippet in the export dir with the stand-in
// modules first on the Python path.
func runSnippet(t *testing.T, dir string, name string, args ...string) {
	t.Helper()
	if name == "bash" {
		if _, err := exec.LookPath("jq"); err != nil {
			t.Log("no jq: shell snippet not run")
			return
		}
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PYTHONPATH="+stubs, "PYTHONDONTWRITEBYTECODE=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("snippet failed (%v):\n%s\n--- snippet ---\n%s", err, out, args[len(args)-1])
	}
}

// checkAxolotl checks an axolotl config snippet for what axolotl 067b021
// requires before it loads data: datasets (src/axolotl/utils/schemas/
// validation.py, "either datasets or pretraining_dataset is required"),
// each entry's path, type and a split its config has, the fields its type
// reads, and rl set for preference and kto data.
func checkAxolotl(t *testing.T, m *Manifest, code string) {
	t.Helper()
	var cfg struct {
		RL           string           `yaml:"rl"`
		Datasets     []map[string]any `yaml:"datasets"`
		TestDatasets []map[string]any `yaml:"test_datasets"`
	}
	if err := yaml.Unmarshal([]byte(code), &cfg); err != nil {
		t.Fatalf("axolotl snippet is not YAML (%v):\n%s", err, code)
	}
	if len(cfg.Datasets) == 0 {
		t.Errorf("axolotl snippet has no datasets, which axolotl requires:\n%s", code)
	}
	byName := map[string]config{}
	for _, c := range configs(m) {
		byName[c.name] = c
	}
	for _, d := range slices.Concat(cfg.Datasets, cfg.TestDatasets) {
		c, ok := byName[fmt.Sprint(d["name"])]
		if !ok || d["path"] == nil || d["type"] == nil || !c.has(fmt.Sprint(d["split"])) {
			t.Errorf("axolotl dataset %v: no such config and split, or no path or type", d)
			continue
		}
		wantRL := map[string]string{kb.KindPreference: "dpo", kb.KindKTO: "kto"}[c.kind]
		if cfg.RL != wantRL {
			t.Errorf("%s: rl %q, want %q", c.name, cfg.RL, wantRL)
		}
		if strings.HasPrefix(fmt.Sprint(d["type"]), "chat_template") && d["field_messages"] == nil {
			t.Errorf("%s: chat_template without field_messages", c.name)
		}
	}
}

func TestDefaultConfig(t *testing.T) {
	train := []string{kb.SplitTrain, kb.SplitValidation}
	val := []string{kb.SplitValidation}
	for _, tc := range []struct {
		name string
		cfgs []config
		want string
	}{
		{"one trainable among eval-only", []config{{name: "a", splits: val}, {name: "b", splits: train}, {name: "c", splits: val}}, "b"},
		{"one trainable alone", []config{{name: "a", splits: []string{kb.SplitTrain}}}, "a"},
		{"two trainable", []config{{name: "a", splits: train}, {name: "b", splits: train}}, ""},
		{"none trainable", []config{{name: "a", splits: val}}, ""},
	} {
		if got := defaultConfig(tc.cfgs); got != tc.want {
			t.Errorf("%s: default %q, want %q", tc.name, got, tc.want)
		}
	}
}
