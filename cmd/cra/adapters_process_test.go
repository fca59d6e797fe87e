package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/internal/version"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// The adapters commands with a second real process beside them: the
// routing changes (promote, rollback) racing each other, the champions
// read while a bootstrap writes, and the lineage an add records from the
// real commands that made its dataset and plan.

// passGate records a passing gate of NAME@1 for scope, judged against
// champion ("" for none).
func passGate(t *testing.T, home, name, champion string) {
	t.Helper()
	recordGate(t, home, kb.GateRow{Adapter: name, Version: 1, Stages: []string{schema.StageScope}, BaselineEval: "base-" + name,
		CandidateEval: "gate-" + name, Champions: map[string]string{schema.StageScope: champion}, Passed: true,
		Conditions: []kb.GateCondition{}})
}

// scopeEvents is scope's routing changes in the order they happened.
func scopeEvents(t *testing.T, home string) []kb.AdapterEvent {
	t.Helper()
	var events []kb.AdapterEvent
	out := mustRun(t, home, "sql", "--format", "json", `select id, action, coalesce(from_name, '') as from_name,
		coalesce(from_version, 0) as from_version, coalesce(to_name, '') as to_name, coalesce(to_version, 0) as to_version
		from raw.adapter_events where stage = 'scope' order by id`)
	if err := json.Unmarshal([]byte(out), &events); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return events
}

// assertChain checks that scope's events form one chain (each event's
// from is the one before's to, the first's none) and that the champion a
// command routes to is the last event's to.
func assertChain(t *testing.T, home string, events []kb.AdapterEvent) {
	t.Helper()
	prev := "none"
	for _, e := range events {
		if from := refOrNone(e.FromName, e.FromVersion); from != prev {
			t.Errorf("event %d (%s) goes from %s, but the champion was %s: a lost update\n%+v", e.ID, e.Action, from, prev, events)
		}
		prev = refOrNone(e.ToName, e.ToVersion)
	}
	got := "none"
	if a, ok := champions(t, home)[schema.StageScope]; ok {
		got = a.String()
	}
	if got != prev {
		t.Errorf("scope's champion is %s, the last event's to %s", got, prev)
	}
}

// Two processes changing scope's routing at once, each with a passing
// gate: the write lock orders them, the second sees what the first did.
// Two promotions judged against no champion: one routes, the other is
// refused (exit 1) because the champion changed since its gate. A
// promotion racing a rollback: either order is a consistent chain. No
// event is ever judged against a stale champion.
func TestAdaptersPromoteRacing(t *testing.T) {
	t.Parallel()
	home := newHome(t)
	root := t.TempDir()
	for i, name := range []string{"a", "b", "c"} {
		mustRun(t, home, "adapters", "add", name, "--path", clitest.WritePEFT(t, filepath.Join(root, name), testBase, 8, byte(i+1)),
			"--stages", schema.StageScope)
	}
	passGate(t, home, "a", "")
	passGate(t, home, "b", "")

	res := craProcesses(t,
		[]string{"--home", home, "adapters", "promote", "a"},
		[]string{"--home", home, "adapters", "promote", "b"})
	won := ""
	for i, r := range res {
		name := []string{"a", "b"}[i]
		switch {
		case r.code == exitOK && won == "":
			won = name
		case r.code == exitFailures && strings.Contains(r.stderr, "judged stage scope against no champion, but the stage's champion is now"):
		default:
			t.Errorf("promote %s beside another promotion: exit %d, %s%s; want 0, or 1 naming the champion that changed", name, r.code, r.stdout, r.stderr)
		}
	}
	t.Logf("two promotions: %d of them waited for the other's turn", strings.Count(res[0].stderr+res[1].stderr, "waiting"))
	events := scopeEvents(t, home)
	if won == "" || len(events) != 1 || events[0].ToName != won {
		t.Fatalf("two promotions at once: %q won, events %+v; want one routed, the other refused", won, events)
	}
	assertChain(t, home, events)

	// c judged against the winner, promoted while another rolls back.
	passGate(t, home, "c", won+"@1")
	res = craProcesses(t,
		[]string{"--home", home, "adapters", "promote", "c"},
		[]string{"--home", home, "adapters", "rollback", schema.StageScope})
	promoted, rolled := res[0], res[1]
	if rolled.code != exitOK {
		t.Errorf("rollback beside a promotion: exit %d, %s", rolled.code, rolled.stderr)
	}
	events = scopeEvents(t, home)
	switch promoted.code {
	case exitOK: // promoted first, then rolled back to the winner
		if len(events) != 3 || events[1].ToName != "c" || events[2].Action != kb.ActionRollback || events[2].ToName != won {
			t.Errorf("promote then rollback: events %+v", events)
		}
	case exitFailures: // rolled back to none first: c's gate is stale
		if !strings.Contains(promoted.stderr, "judged stage scope against "+won+"@1, but the stage's champion is now no champion") ||
			len(events) != 2 || events[1].Action != kb.ActionRollback || events[1].ToName != "" {
			t.Errorf("rollback then promote: %s; events %+v", promoted.stderr, events)
		}
	default:
		t.Errorf("promote beside a rollback: exit %d, %s", promoted.code, promoted.stderr)
	}
	assertChain(t, home, events)
}

// While a real bootstrap writes the raw store, `cra models check` runs
// again and again in processes of its own, two at a time: each reads the
// champions, waiting its turn when the bootstrap holds the store (saying
// so), pings the champion by its served name and succeeds; the bootstrap
// finishes and the registry is as it was.
func TestChampionsReadDuringABootstrap(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs a bootstrap with models checks beside it")
	}
	srv := fakellm.New(t)
	srv.AllowUnused()
	srv.SetModels("c:1b", "r:1b")
	srv.SetAdapters(map[string]fakellm.AdapterBehaviour{"sc-v1": {}})
	home := modelHome(t, srv.OllamaURL())
	mustRun(t, home, "adapters", "add", "sc", "--path", clitest.WritePEFT(t, filepath.Join(t.TempDir(), "sc"), "r:1b", 8, 1), "--stages", schema.StageScope)
	recordGate(t, home, kb.GateRow{Adapter: "sc", Version: 1, Stages: []string{schema.StageScope}, BaselineEval: "x", CandidateEval: "y",
		Champions: map[string]string{schema.StageScope: ""}, Passed: true, Conditions: []kb.GateCondition{}})
	mustRun(t, home, "adapters", "promote", "sc")
	registry := mustRun(t, home, "--json", "adapters", "list")

	// Two loops of checks: a check alone takes about a second here (it
	// pings the model), so one loop fitted only three into the bootstrap.
	check := [][]string{{"--home", home, "--json", "models", "check"}, {"--home", home, "--json", "models", "check"}}
	checks, waits := besideABootstrap(t, home, 400, check, func(_ []string, r result) bool {
		var out struct {
			Checks []struct {
				Model, Adapter, Served string
				OK                     bool
			} `json:"checks"`
		}
		if json.Unmarshal([]byte(r.stdout), &out) != nil {
			return false
		}
		for _, c := range out.Checks {
			if c.Adapter == "sc@1" && c.Served == "sc-v1" && c.OK {
				return true
			}
		}
		return false
	})
	if checks < 4 || waits == 0 {
		t.Errorf("%d checks while the bootstrap ran, %d of them waited: the test proved nothing", checks, waits)
	}
	asked := 0
	for _, r := range srv.Requests() {
		if r.Adapter == "sc-v1" {
			asked++
		}
	}
	if asked == 0 {
		t.Error("no check asked the champion by its served name")
	}
	if got := mustRun(t, home, "--json", "adapters", "list"); got != registry {
		t.Errorf("the registry changed beside the bootstrap:\n%s\nwant\n%s", got, registry)
	}
}

// An adapter added with the dataset curate-data built and the plan
// train-plan chose records both, with the cra version, and show says
// so; a stage the real plan did not target is refused without --force
// and accepted with it.
func TestAdaptersAddLineage(t *testing.T) {
	t.Parallel()
	home := newHome(t)
	mustRun(t, home, "bootstrap", clitest.HistoryRepo(t).Dir) // ground truth for curate-data
	clitest.TrainAll(t, home)
	mustRun(t, home, "sql", "--write", evalRowsSQL) // evidence for train-plan
	out := filepath.Join(t.TempDir(), "plan")
	var plan struct {
		PlanID      int64  `json:"plan_id"`
		TargetStage string `json:"target_stage"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, home, "--json", "train-plan", "--no-llm", "--out", out)), &plan); err != nil {
		t.Fatal(err)
	}
	if plan.PlanID == 0 || plan.TargetStage != schema.StageScope {
		t.Fatalf("train-plan chose %+v; the test needs a plan for scope", plan)
	}
	mustRun(t, home, "curate-data", "--training-plan", filepath.Join(out, "plan.json"), "--name", "scope-data")
	planID := fmt.Sprint(plan.PlanID)
	root := t.TempDir()

	mustRun(t, home, "adapters", "add", "sc", "--path", clitest.WritePEFT(t, filepath.Join(root, "sc"), testBase, 8, 1),
		"--stages", schema.StageScope, "--dataset", "scope-data@1", "--plan", planID)
	var shown kb.AdapterRow
	if err := json.Unmarshal([]byte(mustRun(t, home, "--json", "adapters", "show", "sc")), &shown); err != nil {
		t.Fatal(err)
	}
	if shown.Dataset != "scope-data" || shown.DatasetVersion != 1 || shown.TrainingPlanID != plan.PlanID || shown.CraVersion != version.String() {
		t.Errorf("show --json: dataset %q@%d, plan %d, cra %q; want scope-data@1, plan %d, cra %q",
			shown.Dataset, shown.DatasetVersion, shown.TrainingPlanID, shown.CraVersion, plan.PlanID, version.String())
	}
	text := mustRun(t, home, "adapters", "show", "sc")
	for _, want := range []string{"dataset      scope-data@1\n", "plan         " + planID + "\n", "by cra " + version.String()} {
		if !strings.Contains(text, want) {
			t.Errorf("show lacks %q:\n%s", want, text)
		}
	}

	pr := clitest.WritePEFT(t, filepath.Join(root, "pr"), testBase, 8, 2)
	add := []string{"adapters", "add", "pr", "--path", pr, "--stages", schema.StagePrecision, "--dataset", "scope-data", "--plan", planID}
	if r := cra(t, home, "", add...); r.code != exitUsage || !strings.Contains(r.stderr, "training plan "+planID+" targets scope, not precision") {
		t.Errorf("a stage the plan did not target: exit %d, %q", r.code, r.stderr)
	}
	mustRun(t, home, append(add, "--force")...)
	got := sqlRows(t, home, "select name, dataset, dataset_version, training_plan_id from raw.adapters order by name")
	if want := fmt.Sprintf("name,dataset,dataset_version,training_plan_id\npr,scope-data,1,%d\nsc,scope-data,1,%d\n", plan.PlanID, plan.PlanID); got != want {
		t.Errorf("lineage rows:\n%s\nwant\n%s", got, want)
	}
}
