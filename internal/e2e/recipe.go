package e2e

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cra-dev/cra/kb/schema"
)

// Step is one cra command of the recipe.
type Step struct {
	Name string
	Args []string // after --home HOME
	// Needs is the earlier step this one stands on: when that one did
	// not finish, this one is not run (Result.Code NotRun).
	Needs string
	// Partial: exit 1 (finished, some inputs failed) still counts as
	// finished for the steps that need this one.
	Partial bool
	// Verdict: exit 1 is the step's answer, as good as 0 (the adapter
	// gate judged the adapter and it failed): finished, and no failure
	// of the run.
	Verdict bool
	// Model: the step calls the model, which must be up before it runs.
	Model bool
	// Export is the directory the step exports into: its rows are counted
	// from the manifest there.
	Export string
	// After runs once the step finished (configuration it leaves to do).
	After func() error
}

// Options size the recipe.
type Options struct {
	Repos []string
	// ModelURL is the fake model's root URL (both the agent's Ollama
	// endpoint and, with /v1, the teacher's).
	ModelURL string
	// EvalSample is cra eval's --sample (0: every held-out task).
	EvalSample int
	// DistillBudget is the --budget-usd of the budgeted distill.
	DistillBudget float64
	// DistillSample is both distills' --sample (0: every task).
	DistillSample int
	// TestCommands are repositories' test commands (path → command), each
	// a [[testing.repo]] table: eval judges their tasks by their tests.
	TestCommands map[string]string
	// GateSample is cra adapters eval's --sample: the gate runs two evals
	// of that many tasks.
	GateSample int
	// AskSample is cra ask --eval's --sample: that many questions of each
	// kind (0: every question).
	AskSample int
}

// The models the recipe configures, which the fake model serves.
const (
	CodingModel    = "coder:1b"
	ReasoningModel = "reasoner:1b"
	TeacherModel   = "teacher-1"
)

// Models are every model name the fake model must know: a server that
// serves adapters answers 404 for any other (fakellm.SetModels).
func Models() []string { return []string{CodingModel, ReasoningModel, TeacherModel} }

// The adapter the recipe registers: a LoRA directory for scope on the
// reasoning model (written by WritePEFT), served by the fake model under
// its served name (NAME-vVERSION) with no error of its own.
const (
	AdapterName   = "lora-scope"
	AdapterServed = AdapterName + "-v1"
)

// TeacherKeyEnv is the variable the teacher's (fake) API key is read from;
// Env sets it for every step.
const TeacherKeyEnv = "CRA_E2E_TEACHER_KEY"

// Env is the environment every step runs with.
func Env() []string { return []string{TeacherKeyEnv + "=sk-e2e-fake"} }

// Teacher prices, per million tokens: what config.toml says and what the
// fake teacher charges (Billing).
const (
	TeacherInputPerMillion  = 3.0
	TeacherOutputPerMillion = 15.0
)

// Export layouts and the formats each is exported in.
var exportLayouts = []struct{ layout, format string }{
	{"trl", "parquet"}, {"trl", "jsonl"},
	{"openai", "parquet"}, {"openai", "jsonl"},
	{"axolotl", "parquet"}, {"axolotl", "jsonl"},
}

// Recipe is the README's recipe for home, in its order: init (the model
// and the teacher pointed at the fake), bootstrap, curate-data, an export
// in every layout and format, eval, train-plan, logged curation and its
// export, a question and an ask eval, distill --dry-run and a budgeted
// distill; then an adapter for
// scope registered, its serving printed, gated, promoted by force, its
// route pinged, and train-plan again.
func Recipe(home string, o Options) []Step {
	steps := []Step{
		{Name: "init", Args: []string{"init", "--provider", "ollama", "--base-url", o.ModelURL,
			"--coding-model", CodingModel, "--reasoning-model", ReasoningModel},
			After: func() error {
				_, err := WritePEFT(adapterDir(home), ReasoningModel, 8, 1)
				return errors.Join(configureTeacher(home, strings.TrimRight(o.ModelURL, "/")+"/v1"), configureTests(home, o.TestCommands), err)
			}},
		{Name: "bootstrap", Args: append([]string{"bootstrap"}, o.Repos...), Needs: "init", Partial: true},
		{Name: "curate-data", Args: []string{"curate-data", "--name", "synthetic"}, Needs: "bootstrap"},
	}
	for _, e := range exportLayouts {
		dir := filepath.Join(home, "exports", "synthetic-v1-"+e.layout+"-"+e.format)
		steps = append(steps, Step{Name: "export " + e.layout + " " + e.format, Needs: "curate-data", Export: dir,
			Args: []string{"datasets", "export", "synthetic@1", "--layout", e.layout, "--format", e.format, "--out", dir}})
	}
	eval := []string{"eval", "--name", "nightly", "--seed", "1"}
	if o.EvalSample > 0 {
		eval = append(eval, "--sample", strconv.Itoa(o.EvalSample))
	}
	distill := func(args ...string) []string {
		args = append([]string{"distill"}, args...)
		if o.DistillSample > 0 {
			args = append(args, "--sample", strconv.Itoa(o.DistillSample), "--seed", "1")
		}
		return args
	}
	logged := filepath.Join(home, "exports", "logged-v1-trl-parquet")
	return append(steps,
		Step{Name: "eval", Args: eval, Needs: "bootstrap", Partial: true, Model: true},
		Step{Name: "train-plan", Args: []string{"train-plan"}, Needs: "eval", Model: true},
		// A question about the first repository, then questions with known
		// answers about all of them (bug reports from held-out fixes).
		Step{Name: "ask", Args: []string{"ask", "--repo", o.Repos[0], "Why do I get an error when a required parameter is missing?"},
			Needs: "bootstrap", Model: true},
		Step{Name: "ask --eval", Args: []string{"ask", "--eval", "--name", "nightly-ask", "--sample", strconv.Itoa(o.AskSample), "--seed", "1"},
			Needs: "bootstrap", Partial: true, Model: true},
		// Logged rows of eval runs alone are validation data by design: an
		// evaluation set, which curate-data builds only when asked to.
		Step{Name: "curate-data logged", Args: []string{"curate-data", "--source", "logged", "--kind", "all", "--name", "logged", "--validation-only"}, Needs: "eval"},
		Step{Name: "export logged", Args: []string{"datasets", "export", "logged", "--layout", "trl", "--out", logged}, Needs: "curate-data logged", Export: logged},
		Step{Name: "distill --dry-run", Args: distill("--dry-run"), Needs: "bootstrap"},
		Step{Name: "distill", Args: distill("--budget-usd", strconv.FormatFloat(o.DistillBudget, 'f', -1, 64)),
			Needs: "bootstrap", Partial: true, Model: true},
		// The adapter's loop: register, print how to serve it, gate it (a
		// neutral adapter on a few tasks fails: exit 1 is a verdict),
		// route it by force, ping the route, and train-plan reading both.
		Step{Name: "adapters add", Args: []string{"adapters", "add", AdapterName, "--path", adapterDir(home), "--stages", schema.StageScope,
			"--dataset", "synthetic@1"}, Needs: "curate-data"},
		Step{Name: "adapters serve-config", Args: []string{"adapters", "serve-config", "--server", "ollama"}, Needs: "adapters add"},
		Step{Name: "adapters eval", Args: []string{"adapters", "eval", AdapterName, "--sample", strconv.Itoa(max(o.GateSample, 1)), "--seed", "1"},
			Needs: "adapters add", Verdict: true, Model: true},
		Step{Name: "adapters promote", Args: []string{"adapters", "promote", AdapterName, "--force", "--reason", "make e2e routes scope to it"},
			Needs: "adapters eval"},
		Step{Name: "models check", Args: []string{"models", "check"}, Needs: "adapters promote", Model: true},
		Step{Name: "train-plan adapters", Args: []string{"train-plan"}, Needs: "adapters promote", Model: true},
	)
}

// adapterDir is where the recipe writes its adapter, in the home.
func adapterDir(home string) string { return filepath.Join(home, "e2e-adapter", AdapterName) }

// configureTeacher points config.toml's [teacher] at url with the fake's
// prices, as a user fills in the section cra init writes commented out.
func configureTeacher(home, url string) error {
	path := filepath.Join(home, "config.toml")
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	text := string(b)
	for _, r := range [][2]string{
		{"[teacher]\n", fmt.Sprintf("[teacher]\nbase_url = %q\nmodel = %q\napi_key_env = %q\nmax_tokens = 1024\n", url, TeacherModel, TeacherKeyEnv)},
		{"[teacher.prices]\n", fmt.Sprintf("[teacher.prices]\ninput_per_million = %g\noutput_per_million = %g\n", TeacherInputPerMillion, TeacherOutputPerMillion)},
	} {
		if !strings.Contains(text, r[0]) {
			return fmt.Errorf("%s has no %s section", path, strings.TrimSpace(r[0]))
		}
		text = strings.Replace(text, r[0], r[1], 1)
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

// configureTests appends a [[testing.repo]] table per repository and test
// command to config.toml.
func configureTests(home string, commands map[string]string) error {
	if len(commands) == 0 {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	for _, repo := range slices.Sorted(maps.Keys(commands)) {
		if _, err := fmt.Fprintf(f, "\n[[testing.repo]]\npath = %q\ntest_command = %q\n", repo, commands[repo]); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}
