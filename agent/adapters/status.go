package adapters

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
)

// Version is a registered adapter version with its latest gate verdict.
type Version struct {
	kb.AdapterRow
	Gate *kb.GateRow `json:"gate"` // nil: never gated
}

// StageStatus is one stage's adapters: the champion (routed), the
// candidates (registered for the stage, never its champion) and the
// retired (its champions before).
type StageStatus struct {
	Stage      string    `json:"stage"`
	Champion   *Version  `json:"champion"`
	Candidates []Version `json:"candidates"`
	Retired    []Version `json:"retired"`
}

// Registry is the registry as read once: every version, the latest
// verdicts and the events.
type Registry struct {
	Versions []kb.AdapterRow
	Gates    map[string]kb.GateRow // by NAME@V
	Events   []kb.AdapterEvent
}

// ReadRegistry reads the whole registry through q.
func ReadRegistry(ctx context.Context, q kb.Querier) (Registry, error) {
	var r Registry
	var err error
	if r.Versions, err = kb.AdapterVersions(ctx, q, ""); err != nil {
		return r, err
	}
	if r.Gates, err = kb.LatestAdapterGates(ctx, q); err != nil {
		return r, err
	}
	r.Events, err = kb.AdapterEvents(ctx, q, "")
	return r, err
}

// Champions is each stage's champion by the latest event (none left out).
func (r Registry) Champions() map[string]string {
	out := map[string]string{}
	for _, e := range r.Events {
		if e.ToName == "" {
			delete(out, e.Stage)
			continue
		}
		out[e.Stage] = ref(e.ToName, e.ToVersion)
	}
	return out
}

func ref(name string, v int) string { return name + "@" + strconv.Itoa(v) }

func (r Registry) version(a kb.AdapterRow) Version {
	v := Version{AdapterRow: a}
	if g, ok := r.Gates[a.Ref()]; ok {
		v.Gate = &g
	}
	return v
}

// Status is the registry per stage, in pipeline order, for the stages
// that have an adapter or had a champion.
func (r Registry) Status() []StageStatus {
	champions := r.Champions()
	wasChampion := map[string]bool{} // stage + " " + NAME@V
	for _, e := range r.Events {
		if e.ToName != "" {
			wasChampion[e.Stage+" "+ref(e.ToName, e.ToVersion)] = true
		}
	}
	byStage := map[string]*StageStatus{}
	get := func(stage string) *StageStatus {
		if byStage[stage] == nil {
			byStage[stage] = &StageStatus{Stage: stage, Candidates: []Version{}, Retired: []Version{}}
		}
		return byStage[stage]
	}
	for _, a := range r.Versions {
		for _, stage := range a.Stages {
			st, v := get(stage), r.version(a)
			switch {
			case champions[stage] == a.Ref():
				st.Champion = &v
			case wasChampion[stage+" "+a.Ref()]:
				st.Retired = append(st.Retired, v)
			default:
				st.Candidates = append(st.Candidates, v)
			}
		}
	}
	out := make([]StageStatus, 0, len(byStage))
	for _, st := range byStage {
		out = append(out, *st)
	}
	sort.Slice(out, func(i, j int) bool {
		return stageOrder(out[i].Stage) < stageOrder(out[j].Stage) ||
			stageOrder(out[i].Stage) == stageOrder(out[j].Stage) && out[i].Stage < out[j].Stage
	})
	return out
}

func stageOrder(s string) int {
	if i := slices.Index(Stages, s); i >= 0 {
		return i
	}
	return len(Stages)
}

// Find resolves NAME (its latest version) or NAME@V, or a usage error
// that says what there is.
func (r Registry) Find(name string) (kb.AdapterRow, error) {
	n, v, pinned := strings.Cut(name, "@")
	want := 0
	if pinned {
		var err error
		if want, err = strconv.Atoi(v); err != nil || want < 1 {
			return kb.AdapterRow{}, usage.Errorf("adapter %q: the version after @ is a number from 1", name)
		}
	}
	var have []string
	var found *kb.AdapterRow
	for i, a := range r.Versions {
		if a.Name != n {
			continue
		}
		have = append(have, strconv.Itoa(a.Version))
		if !pinned || a.Version == want {
			found = &r.Versions[i]
		}
	}
	switch {
	case len(have) == 0:
		return kb.AdapterRow{}, usage.Errorf("no adapter %q: register it with `cra adapters add %s --path DIR --stages S` (see `cra adapters list`)", n, n)
	case found == nil:
		return kb.AdapterRow{}, usage.Errorf("adapter %s has no version %d; its versions are %s", n, want, strings.Join(have, ", "))
	}
	return *found, nil
}

// Shown is one version as `cra adapters show` prints it: where it stands
// in each of its stages, its gate and the events that routed it.
type Shown struct {
	Version
	Standing map[string]string `json:"standing"` // stage → champion, candidate or retired
	Events   []kb.AdapterEvent `json:"events"`
}

// Show is a's standing per stage and its events.
func (r Registry) Show(a kb.AdapterRow) Shown {
	s := Shown{Version: r.version(a), Standing: map[string]string{}, Events: []kb.AdapterEvent{}}
	for _, st := range r.Status() {
		if st.Champion != nil && st.Champion.Ref() == a.Ref() {
			s.Standing[st.Stage] = "champion"
		}
		for _, v := range st.Candidates {
			if v.Ref() == a.Ref() {
				s.Standing[st.Stage] = "candidate"
			}
		}
		for _, v := range st.Retired {
			if v.Ref() == a.Ref() {
				s.Standing[st.Stage] = "retired"
			}
		}
	}
	for _, e := range r.Events {
		if ref(e.ToName, e.ToVersion) == a.Ref() || ref(e.FromName, e.FromVersion) == a.Ref() {
			s.Events = append(s.Events, e)
		}
	}
	return s
}

// Champions is each routed stage's champion, as the model router takes
// them (config.Models.Champions): one query.
func Champions(ctx context.Context, raw kb.Querier) (map[string]config.Adapter, error) {
	rows, err := kb.AdapterChampions(ctx, raw)
	if err != nil {
		return nil, err
	}
	out := make(map[string]config.Adapter, len(rows))
	for stage, a := range rows {
		out[stage] = config.Adapter{Name: a.Name, Version: a.Version, SHA256: a.SHA256, Path: a.Path}
	}
	return out, nil
}

// GateSummary says a verdict in a few words: passed or failed with the
// conditions that failed.
func GateSummary(g *kb.GateRow) string {
	if g == nil {
		return "not gated"
	}
	if g.Passed {
		return fmt.Sprintf("passed (gate %d)", g.ID)
	}
	var failed []string
	for _, c := range g.Conditions {
		if !c.Passed {
			failed = append(failed, c.Name)
		}
	}
	return fmt.Sprintf("failed: %s (gate %d)", strings.Join(failed, ", "), g.ID)
}
