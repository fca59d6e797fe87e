package kb

import (
	"context"
	"reflect"
	"testing"
)

// The registry's writers and readers round-trip: a re-add of the same
// weights and stages is the same version, changed weights or stages the
// next; the latest gate of a version is read back whole; the champion of
// a stage is the `to` of its latest event, none when that is NULL.
func TestAdapterRegistryRoundTrip(t *testing.T) {
	t.Parallel()
	dir := initHome(t)
	ctx := context.Background()
	write := func(fn func(w Writer) error) {
		t.Helper()
		if err := WithWriter(ctx, dir, Raw, Options{Command: "test"}, func(w Writer) error { return w.Tx(ctx, func() error { return fn(w) }) }); err != nil {
			t.Fatal(err)
		}
	}
	row := AdapterRow{Name: "sc", Path: "/a", BaseModel: "Qwen/Qwen3-1.7B", Rank: 16, Alpha: 32, TargetModules: nil,
		WeightsFile: "adapter_model.safetensors", SHA256: "aa", SizeBytes: 10, Stages: []string{"scope", "precision"}}
	add := func(r AdapterRow) (AdapterRow, bool) {
		var got AdapterRow
		var added bool
		write(func(w Writer) (err error) { got, added, err = AddAdapterVersion(ctx, w, r); return err })
		return got, added
	}
	for i, c := range []struct {
		sha     string
		stages  []string
		version int
		added   bool
	}{
		{"aa", []string{"scope", "precision"}, 1, true},
		{"aa", []string{"precision", "scope"}, 1, false}, // same set
		{"bb", []string{"scope", "precision"}, 2, true},
		{"aa", []string{"scope"}, 3, true},
		{"bb", []string{"scope", "precision"}, 2, false}, // an older version's files
	} {
		r := row
		r.SHA256, r.Stages = c.sha, c.stages
		got, added := add(r)
		if got.Version != c.version || added != c.added {
			t.Errorf("add %d (%s %v): version %d added %v, want %d %v", i, c.sha, c.stages, got.Version, added, c.version, c.added)
		}
	}
	s, err := Open(ctx, dir, Raw, Options{})
	if err != nil {
		t.Fatal(err)
	}
	all, err := AdapterVersions(ctx, s.DB, "sc")
	s.Close()
	if err != nil || len(all) != 3 || all[0].TargetModules == nil || len(all[0].TargetModules) != 0 || all[2].Stages[0] != "scope" || all[0].Created == "" {
		t.Fatalf("versions: %+v, %v", all, err)
	}

	gate := GateRow{Adapter: "sc", Version: 2, Stages: []string{"scope"}, BaselineEval: "b", CandidateEval: "c",
		Champions: map[string]string{"scope": "sc@1", "precision": ""}, Passed: true,
		Conditions: []GateCondition{{Name: "target_stage_improves", Passed: true, Figures: map[string]float64{"diff": 0.2, "low": 0.05}}}}
	write(func(w Writer) error {
		if _, err := InsertAdapterGate(ctx, w.Conn, GateRow{Adapter: "sc", Version: 2, Stages: []string{"scope"}, Champions: map[string]string{}}); err != nil {
			return err
		}
		id, err := InsertAdapterGate(ctx, w.Conn, gate)
		gate.ID = id
		return err
	})
	write(func(w Writer) error {
		for _, e := range []AdapterEvent{
			{Stage: "scope", Action: ActionPromote, ToName: "sc", ToVersion: 1, Actor: "u@h"},
			{Stage: "precision", Action: ActionPromote, ToName: "sc", ToVersion: 1, Actor: "u@h"},
			{Stage: "scope", Action: ActionForce, FromName: "sc", FromVersion: 1, ToName: "sc", ToVersion: 2, GateID: gate.ID, Reason: "r", Actor: "u@h"},
			{Stage: "precision", Action: ActionRollback, FromName: "sc", FromVersion: 1, Actor: "u@h"},
		} {
			if _, err := InsertAdapterEvent(ctx, w.Conn, e); err != nil {
				return err
			}
		}
		return nil
	})
	s, err = Open(ctx, dir, Raw, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	gates, err := LatestAdapterGates(ctx, s.DB)
	if err != nil {
		t.Fatal(err)
	}
	got := gates["sc@2"]
	got.Created = ""
	if !reflect.DeepEqual(got, gate) {
		t.Errorf("latest gate:\n%+v\nwant\n%+v", got, gate)
	}
	champions, err := AdapterChampions(ctx, s.DB)
	if err != nil || len(champions) != 1 || champions["scope"].Ref() != "sc@2" || champions["scope"].Path != "/a" || champions["scope"].SHA256 != "bb" {
		t.Errorf("champions: %+v, %v", champions, err)
	}
	events, err := AdapterEvents(ctx, s.DB, "precision")
	if err != nil || len(events) != 2 || events[1].Action != ActionRollback || events[1].ToName != "" || events[1].FromVersion != 1 {
		t.Errorf("precision events: %+v, %v", events, err)
	}
}
