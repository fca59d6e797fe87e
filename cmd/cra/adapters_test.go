package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/golden"
	"github.com/cra-dev/cra/internal/version"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

const testBase = "Qwen/Qwen3-1.7B" // the default config's qwen3:1.7b, as Hugging Face names it

// adapterGolden makes output independent of the run: the adapters'
// directory, times, the cra version and who ran it.
func adapterGolden(out, root string) string {
	out = strings.ReplaceAll(out, root, "ROOT")
	out = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`).ReplaceAllString(out, "CREATED")
	out = strings.ReplaceAll(out, actorForTest(), "ACTOR")
	v, _ := json.Marshal(version.String())
	out = strings.ReplaceAll(out, string(v), `"VERSION"`)
	return strings.ReplaceAll(out, "cra "+version.String()+")", "cra VERSION)")
}

func actorForTest() string {
	name := os.Getenv("USER")
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	host, _ := os.Hostname()
	return name + "@" + host
}

// recordGate writes a gate verdict as the gate does, through kb's writer.
func recordGate(t *testing.T, home string, g kb.GateRow) int64 {
	t.Helper()
	var id int64
	err := kb.WithWriter(context.Background(), home, kb.Raw, kb.Options{Command: "test"}, func(w kb.Writer) (err error) {
		id, err = kb.InsertAdapterGate(context.Background(), w.Conn, g)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// An adapter's base model must be the model its stages are served by,
// named both ways in the refusal; a truncated weights file is refused
// naming it; nothing is registered by a refusal.
func TestAdaptersAddRefusals(t *testing.T) {
	home := newHome(t)
	root := t.TempDir()
	llama := clitest.WritePEFT(t, filepath.Join(root, "llama"), "meta-llama/Llama-3.2-1B", 8, 1)
	r := cra(t, home, "", "adapters", "add", "sc", "--path", llama, "--stages", schema.StageScope)
	if r.code != exitUsage || !strings.Contains(r.stderr, "meta-llama/Llama-3.2-1B") || !strings.Contains(r.stderr, "qwen3:1.7b") {
		t.Errorf("another base model: exit %d, %q", r.code, r.stderr)
	}

	cut := clitest.WritePEFT(t, filepath.Join(root, "cut"), testBase, 8, 1)
	weights := filepath.Join(cut, "adapter_model.safetensors")
	b, _ := os.ReadFile(weights)
	if err := os.WriteFile(weights, b[:len(b)-4], 0o644); err != nil {
		t.Fatal(err)
	}
	r = cra(t, home, "", "adapters", "add", "sc", "--path", cut, "--stages", schema.StageScope)
	if r.code != exitUsage || !strings.Contains(r.stderr, weights) || !strings.Contains(r.stderr, "truncated") {
		t.Errorf("truncated weights: exit %d, %q", r.code, r.stderr)
	}

	good := clitest.WritePEFT(t, filepath.Join(root, "good"), testBase, 8, 1)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--stages", "nope"}, `"nope" is not a stage`},
		{[]string{"--stages", schema.StageScope, "--dataset", "missing"}, `dataset "missing"`},
		{[]string{"--stages", schema.StageScope, "--plan", "99"}, "training plan 99"},
	} {
		r = cra(t, home, "", append([]string{"adapters", "add", "sc", "--path", good}, c.args...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, %q, want %q", c.args, r.code, r.stderr, c.want)
		}
	}
	if out := mustRun(t, home, "sql", "--format", "csv", "select count(*) as n from raw.adapters"); out != "n\n0\n" {
		t.Errorf("a refused add registered something: %q", out)
	}
}

// A stage the training plan did not target is refused unless --force; the
// same files for the same stages are the same version, changed weights the
// next; list and show say so, as text and JSON.
func TestAdaptersAddListShow(t *testing.T) {
	home := newHome(t)
	root := t.TempDir()
	mustRun(t, home, "sql", "--write", `INSERT INTO raw.training_plans (id, task_id, target_stage, base_model, source,
		data_criteria, raw_plan, timestamp) VALUES (7, 'train-plan-1', 'scope', 'reasoning', 'synthetic', '{}', '{}', now())`)
	dir := clitest.WritePEFT(t, filepath.Join(root, "scope-lora"), testBase, 16, 1)
	both := schema.StageScope + "," + schema.StagePrecision

	r := cra(t, home, "", "adapters", "add", "sc", "--path", dir, "--stages", both, "--plan", "7")
	if r.code != exitUsage || !strings.Contains(r.stderr, "training plan 7 targets scope, not precision") || !strings.Contains(r.stderr, "--force") {
		t.Fatalf("a stage the plan did not target: exit %d, %q", r.code, r.stderr)
	}
	var added struct {
		Adapter kb.AdapterRow `json:"adapter"`
		New     bool          `json:"new"`
	}
	add := func(args ...string) {
		t.Helper()
		added.New = false
		if err := json.Unmarshal([]byte(mustRun(t, home, append([]string{"--json", "adapters", "add"}, args...)...)), &added); err != nil {
			t.Fatal(err)
		}
	}
	add("sc", "--path", dir, "--stages", both, "--plan", "7", "--force")
	if !added.New || added.Adapter.Version != 1 || added.Adapter.TrainingPlanID != 7 || added.Adapter.Rank != 16 || added.Adapter.Alpha != 32 {
		t.Fatalf("first add: %+v", added)
	}
	add("sc", "--path", dir, "--stages", schema.StagePrecision+","+schema.StageScope, "--plan", "7", "--force")
	if added.New || added.Adapter.Version != 1 {
		t.Fatalf("the same files again: %+v", added)
	}
	clitest.WritePEFT(t, dir, testBase, 16, 2) // retrained
	add("sc", "--path", dir, "--stages", both, "--plan", "7", "--force")
	if !added.New || added.Adapter.Version != 2 {
		t.Fatalf("changed weights: %+v", added)
	}
	clitest.WritePEFT(t, filepath.Join(root, "implement-lora"), testBase, 24, 3)
	mustRun(t, home, "adapters", "add", "impl", "--path", filepath.Join(root, "implement-lora"), "--stages", schema.StageImplement)
	id := recordGate(t, home, kb.GateRow{Adapter: "sc", Version: 2, Stages: []string{schema.StageScope, schema.StagePrecision},
		BaselineEval: "gate-sc-2-base", CandidateEval: "gate-sc-2", Champions: map[string]string{schema.StageScope: "sc@1", schema.StagePrecision: "sc@1"},
		Passed: true, Conditions: []kb.GateCondition{{Name: "target_stage_improves", Passed: true, Figures: map[string]float64{"diff": 0.2, "low": 0.05, "high": 0.35}}}})
	mustRun(t, home, "adapters", "promote", "sc@1", "--force", "--reason", "first adapter, before any gate")
	mustRun(t, home, "adapters", "promote", "sc")
	if id == 0 {
		t.Fatal("no gate id")
	}

	for _, c := range []struct{ file string }{{"list"}, {"list.json"}, {"show"}, {"show.json"}} {
		args := []string{"adapters", "list"}
		if strings.HasPrefix(c.file, "show") {
			args = []string{"adapters", "show", "sc@2"}
		}
		if strings.HasSuffix(c.file, ".json") {
			args = append([]string{"--json"}, args...)
		}
		golden.Assert(t, filepath.Join("testdata", "adapters", c.file+".golden"), []byte(adapterGolden(mustRun(t, home, args...), root)))
	}
	if r := cra(t, home, "", "adapters", "show", "sc@9"); r.code != exitUsage || !strings.Contains(r.stderr, "its versions are 1, 2") {
		t.Errorf("show of a missing version: exit %d, %q", r.code, r.stderr)
	}
}

// serve-config prints the three servers' configurations, every champion
// and candidate by default.
func TestAdaptersServeConfig(t *testing.T) {
	home := newHome(t)
	root := t.TempDir()
	clitest.WritePEFT(t, filepath.Join(root, "scope-lora"), testBase, 16, 1)
	clitest.WritePEFT(t, filepath.Join(root, "implement-lora"), testBase, 24, 2)
	mustRun(t, home, "adapters", "add", "sc", "--path", filepath.Join(root, "scope-lora"), "--stages", schema.StageScope)
	mustRun(t, home, "adapters", "add", "impl", "--path", filepath.Join(root, "implement-lora"), "--stages", schema.StageImplement)
	for _, server := range config.Servers() {
		out := mustRun(t, home, "adapters", "serve-config", "--server", server)
		golden.Assert(t, filepath.Join("testdata", "adapters", "serve_"+server+".golden"), []byte(adapterGolden(out, root)))
	}
	if out := mustRun(t, home, "adapters", "serve-config", "--server", config.ServerVLLM, "sc"); strings.Contains(out, "impl-v1") || !strings.Contains(out, "--max-lora-rank 16") {
		t.Errorf("serve-config of one adapter:\n%s", out)
	}
	if r := cra(t, home, "", "adapters", "serve-config", "--server", "tgi"); r.code != exitUsage || !strings.Contains(r.stderr, "vllm, llamacpp, ollama") {
		t.Errorf("unknown server: exit %d, %q", r.code, r.stderr)
	}
}

// Promotion needs the version's latest gate to have passed against the
// champions the stages have now; --force --reason overrides, recorded;
// rollback returns the previous champion; every change is an event; and
// a command's configuration then carries the champions.
func TestAdaptersPromoteAndRollback(t *testing.T) {
	home := newHome(t)
	root := t.TempDir()
	clitest.WritePEFT(t, filepath.Join(root, "a"), testBase, 8, 1)
	clitest.WritePEFT(t, filepath.Join(root, "b"), testBase, 8, 2)
	mustRun(t, home, "adapters", "add", "a", "--path", filepath.Join(root, "a"), "--stages", schema.StageScope)
	mustRun(t, home, "adapters", "add", "b", "--path", filepath.Join(root, "b"), "--stages", schema.StageScope)
	scope := schema.StageScope

	r := cra(t, home, "", "adapters", "promote", "a")
	if r.code != exitFailures || !strings.Contains(r.stderr, "no gate verdict") || !strings.Contains(r.stderr, "cra adapters eval a@1") {
		t.Errorf("no gate: exit %d, %q", r.code, r.stderr)
	}
	recordGate(t, home, kb.GateRow{Adapter: "a", Version: 1, Stages: []string{scope}, BaselineEval: "x", CandidateEval: "y",
		Champions: map[string]string{scope: ""}, Passed: false, Conditions: []kb.GateCondition{
			{Name: "target_stage_improves", Passed: true, Figures: map[string]float64{"diff": 0.1}},
			{Name: "end_to_end_within_max_regression", Passed: false, Figures: map[string]float64{"diff": -0.08, "low": -0.15}}}})
	r = cra(t, home, "", "adapters", "promote", "a")
	if r.code != exitFailures || !strings.Contains(r.stderr, "end_to_end_within_max_regression (diff=-0.08 low=-0.15)") || strings.Contains(r.stderr, "target_stage_improves") {
		t.Errorf("failed gate: exit %d, %q", r.code, r.stderr)
	}
	pass := func(name string, champion string) {
		recordGate(t, home, kb.GateRow{Adapter: name, Version: 1, Stages: []string{scope}, BaselineEval: "x", CandidateEval: "y",
			Champions: map[string]string{scope: champion}, Passed: true, Conditions: []kb.GateCondition{}})
	}
	pass("a", "")
	pass("b", "") // judged when scope had no champion
	mustRun(t, home, "adapters", "promote", "a")
	r = cra(t, home, "", "adapters", "promote", "b")
	if r.code != exitFailures || !strings.Contains(r.stderr, "judged stage scope against no champion, but the stage's champion is now a@1") {
		t.Errorf("champion changed since the gate: exit %d, %q", r.code, r.stderr)
	}
	if r := cra(t, home, "", "adapters", "promote", "b", "--force"); r.code != exitUsage || !strings.Contains(r.stderr, "--reason") {
		t.Errorf("--force without --reason: exit %d, %q", r.code, r.stderr)
	}
	var routed struct {
		Events []kb.AdapterEvent `json:"events"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, home, "--json", "adapters", "promote", "b", "--force", "--reason", "hotfix")), &routed); err != nil {
		t.Fatal(err)
	}
	if len(routed.Events) != 1 || routed.Events[0].Action != kb.ActionForce || routed.Events[0].FromName != "a" || routed.Events[0].Reason != "hotfix" {
		t.Errorf("forced promotion: %+v", routed.Events)
	}
	if got := champions(t, home); got[scope].String() != "b@1" {
		t.Errorf("champions after the forced promotion: %v", got)
	}
	out := mustRun(t, home, "adapters", "rollback", scope)
	if !strings.Contains(out, "scope: b@1 → a@1 (rollback") {
		t.Errorf("rollback: %q", out)
	}
	got := champions(t, home)
	if a := got[scope]; a.String() != "a@1" || a.Path != filepath.Join(root, "a") || len(a.SHA256) != 64 {
		t.Errorf("champions after the rollback: %+v", got)
	}
	events := mustRun(t, home, "sql", "--format", "csv", `select action, coalesce(from_name, '-'), to_name, gate_id is not null, coalesce(reason, '-')
		from raw.adapter_events order by id`)
	if want := "action,\"COALESCE(from_name, '-')\",to_name,(gate_id IS NOT NULL),\"COALESCE(reason, '-')\"\n" +
		"promote,-,a,true,-\nforce,a,b,true,hotfix\nrollback,b,a,false,-\n"; events != want {
		t.Errorf("events:\n%s\nwant\n%s", events, want)
	}
	if r := cra(t, home, "", "adapters", "rollback", schema.StageImplement); r.code != exitUsage || !strings.Contains(r.stderr, "never routed") {
		t.Errorf("rollback of a stage never routed: exit %d, %q", r.code, r.stderr)
	}
}

// champions is the champions a command's configuration carries.
func champions(t *testing.T, home string) map[string]config.Adapter {
	t.Helper()
	a := &app{home: config.Home{Dir: home}, log: slog.New(slog.DiscardHandler)} // a wait would say so
	cfg, err := a.loadConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Models.Champions
}

// Two `cra adapters add` processes on one name at once: each lands as its
// own version, none lost.
func TestTwoAdaptersAddProcesses(t *testing.T) {
	home := newHome(t)
	root := t.TempDir()
	a := clitest.WritePEFT(t, filepath.Join(root, "a"), testBase, 8, 1)
	b := clitest.WritePEFT(t, filepath.Join(root, "b"), testBase, 8, 2)
	res := craProcesses(t,
		[]string{"--home", home, "adapters", "add", "sc", "--path", a, "--stages", schema.StageScope},
		[]string{"--home", home, "adapters", "add", "sc", "--path", b, "--stages", schema.StageScope})
	for i, r := range res {
		if r.code != exitOK {
			t.Fatalf("process %d: exit %d, %s", i, r.code, r.stderr)
		}
	}
	out := mustRun(t, home, "sql", "--format", "csv", "select string_agg(version::VARCHAR, ' ' order by version) as v, count(distinct sha256) as files, count(distinct path) as paths from raw.adapters")
	if out != "v,files,paths\n1 2,2,2\n" {
		t.Errorf("versions: %q", out)
	}
}
