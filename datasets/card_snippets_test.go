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
	python := needPython(t)
	raw := snippetStore(t, withEvalOnlyStage(48))
	for _, tc := range []struct{ layout, format string }{
		{LayoutTRL, FormatParquet}, {LayoutTRL, FormatJSONL},
		{LayoutAxolotl, FormatParquet}, {LayoutAxolotl, FormatJSONL},
		{LayoutOpenAI, FormatJSONL}, {LayoutOpenAI, FormatParquet},
	} {
		t.Run(tc.layout+"-"+tc.format, func(t *testing.T) {
			dir, m, readme := exportCard(t, raw, tc.layout, tc.format)
			if len(evalOnly(configs(m))) == 0 {
				t.Fatal("the fixture has no validation-only config")
			}
			ran := runCardSnippets(t, python, dir, m, readme)
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

// A dataset with one config with train rows (and one with validation rows
// only) declares that config the default, and the card's
// load_dataset("path/to/this/directory"), no config named, loads its train
// split as datasets would.
func TestCardDefaultConfigLoads(t *testing.T) {
	python := needPython(t)
	var rows []kb.TrainingExample
	for _, e := range withEvalOnlyStage(48) {
		if e.Kind == kb.KindSFT && e.Stage != "scope" {
			rows = append(rows, e)
		}
	}
	raw := snippetStore(t, rows)
	dir, m, readme := exportCard(t, raw, LayoutTRL, FormatJSONL)
	if got := defaultConfig(configs(m)); got != "implement-sft" {
		t.Fatalf("default config %q, want implement-sft", got)
	}
	if !strings.Contains(readme, "- config_name: implement-sft\n  default: true\n") {
		t.Errorf("the front matter does not mark implement-sft default:\n%s", readme)
	}
	inline := regexp.MustCompile("`(load_dataset\\(\"path/to/this/directory\"\\))`").FindStringSubmatch(readme)
	if inline == nil {
		t.Fatalf("the card does not say how to load the default config:\n%s", readme)
	}
	runCardSnippets(t, python, dir, m, readme)
	code := "from datasets import load_dataset\nds = " + strings.ReplaceAll(inline[1], "path/to/this/directory", dir) +
		"\nassert len(ds[\"train\"]) > 0, ds\n"
	runSnippet(t, dir, python, "-c", code)
}

// needPython is python3's path; the test is skipped without it.
func needPython(t *testing.T) string {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	return python
}

// snippetStore is a raw store holding rows as dataset "mix".
func snippetStore(t *testing.T, rows []kb.TrainingExample) *kb.Store {
	t.Helper()
	home := storetest.Home(t)
	storetest.Dataset(t, home, "mix", rows)
	raw, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return raw
}

// exportCard exports "mix" in layout and format and reads its card.
func exportCard(t *testing.T, raw *kb.Store, layout, format string) (string, *Manifest, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	m, err := Export(context.Background(), raw.DB, kb.DatasetRef{Name: "mix"},
		ExportOptions{Layout: layout, Format: format, Kinds: layoutsKinds(layout), Out: dir})
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, m, string(readme)
}

// runCardSnippets runs every code block of readme in dir, in order, and
// counts them by language. Without jq a shell block's globs are checked
// instead, and the Python that uploads its output is not run.
func runCardSnippets(t *testing.T, python, dir string, m *Manifest, readme string) map[string]int {
	t.Helper()
	_, jqErr := exec.LookPath("jq")
	ran, joined := map[string]int{}, true
	for _, b := range snippetBlock.FindAllStringSubmatch(readme, -1) {
		lang, code := b[1], strings.ReplaceAll(b[2], "path/to/this/directory", dir)
		ran[lang]++
		switch {
		case lang == "sh" && jqErr != nil:
			checkGlobs(t, dir, code)
			joined = false
		case lang == "sh":
			runSnippet(t, dir, "bash", "-euo", "pipefail", "-c", code)
		case lang == "python" && !joined:
			t.Logf("no jq: not run:\n%s", code)
		case lang == "python":
			runSnippet(t, dir, python, "-c", code)
		case lang == "yaml":
			checkAxolotl(t, m, code)
		}
	}
	return ran
}

// checkGlobs checks that every `cat GLOB` of a shell snippet matches files
// in dir.
func checkGlobs(t *testing.T, dir, code string) {
	t.Helper()
	for _, g := range regexp.MustCompile(`cat (\S+) \|`).FindAllStringSubmatch(code, -1) {
		if files, _ := filepath.Glob(filepath.Join(dir, g[1])); len(files) == 0 {
			t.Errorf("%s matches no file", g[1])
		}
	}
}

// runSnippet runs a card snippet in the export dir with the stand-in
// modules first on the Python path.
func runSnippet(t *testing.T, dir string, name string, args ...string) {
	t.Helper()
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
