package adapters

import (
	"context"
	"fmt"
	"os"
	"os/user"
	"strings"

	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
)

// PromoteOptions is `cra adapters promote`.
type PromoteOptions struct {
	Store
	Adapter string // NAME or NAME@V
	Force   bool   // route it although its gate did not pass on the current champions
	Reason  string // required with Force: recorded with the event
}

// Routed is what a promotion or rollback changed: one event per stage.
type Routed struct {
	Adapter string            `json:"adapter,omitempty"` // NAME@V promoted
	Events  []kb.AdapterEvent `json:"events"`
	Already []string          `json:"already,omitempty"` // stages it was champion of already
}

// RefusedError says why a promotion was refused: the gate's failed
// conditions with their figures, or the champion that changed since the
// gate. It is not a usage error: the command was right, the adapter is
// not ready (exit 1).
type RefusedError struct {
	Adapter string
	Why     string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("promote %s refused: %s", e.Adapter, e.Why)
}

// Promote routes each stage of the adapter to it, if its latest gate
// passed and was judged against each of those stages' current champion;
// with Force (and a Reason) it does so anyway, recorded as an override.
// The check and the events are one transaction.
func Promote(ctx context.Context, opts PromoteOptions) (Routed, error) {
	if opts.Force && strings.TrimSpace(opts.Reason) == "" {
		return Routed{}, usage.Errorf("--force needs --reason TEXT: the override is recorded with why")
	}
	if !opts.Force && opts.Reason != "" {
		return Routed{}, usage.Errorf("--reason goes with --force (a promotion on a passing gate needs none)")
	}
	actor := actor()
	var out Routed
	err := withWriter(ctx, opts.Store, func(w kb.Writer) error {
		reg, err := ReadRegistry(ctx, w.Conn)
		if err != nil {
			return err
		}
		a, err := reg.Find(opts.Adapter)
		if err != nil {
			return err
		}
		out.Adapter = a.Ref()
		champions := reg.Champions()
		var stages []string
		for _, s := range a.Stages {
			if champions[s] == a.Ref() {
				out.Already = append(out.Already, s)
				continue
			}
			stages = append(stages, s)
		}
		if len(stages) == 0 {
			return nil
		}
		gate, hasGate := reg.Gates[a.Ref()]
		action := kb.ActionPromote
		if why := refusal(a, gate, hasGate, stages, champions); why != "" {
			if !opts.Force {
				return &RefusedError{Adapter: a.Ref(), Why: why}
			}
			action = kb.ActionForce
		}
		for _, s := range stages {
			e := kb.AdapterEvent{Stage: s, Action: action, ToName: a.Name, ToVersion: a.Version, GateID: gate.ID,
				Reason: opts.Reason, Actor: actor}
			e.FromName, e.FromVersion = splitRef(champions[s])
			if e, err = kb.InsertAdapterEvent(ctx, w.Conn, e); err != nil {
				return err
			}
			out.Events = append(out.Events, e)
		}
		return nil
	})
	return out, err
}

// refusal says why a may not be promoted on stages ("" when it may): no
// gate, a gate that failed (each failed condition with its figures), or a
// gate judged against another champion than a stage has now.
func refusal(a kb.AdapterRow, g kb.GateRow, has bool, stages []string, champions map[string]string) string {
	if !has {
		return fmt.Sprintf("it has no gate verdict: run `cra adapters eval %s` first", a.Ref())
	}
	if !g.Passed {
		var failed []string
		for _, c := range g.Conditions {
			if !c.Passed {
				failed = append(failed, c.Name+" "+Figures(c.Figures))
			}
		}
		return fmt.Sprintf("its gate %d failed: %s", g.ID, strings.Join(failed, "; "))
	}
	for _, s := range stages {
		judged, ok := g.Champions[s]
		if !ok {
			return fmt.Sprintf("its gate %d did not judge stage %s: run `cra adapters eval %s` again", g.ID, s, a.Ref())
		}
		if judged != champions[s] {
			return fmt.Sprintf("its gate %d judged stage %s against %s, but the stage's champion is now %s: run `cra adapters eval %s` again",
				g.ID, s, orNone(judged), orNone(champions[s]), a.Ref())
		}
	}
	return ""
}

// Figures prints a condition's figures in name order: (diff=0.12 low=-0.01).
func Figures(f map[string]float64) string { return kb.GateFigures(f) }

func orNone(ref string) string {
	if ref == "" {
		return "no champion"
	}
	return ref
}

func splitRef(ref string) (string, int) {
	if ref == "" {
		return "", 0
	}
	name, v, _ := strings.Cut(ref, "@")
	var n int
	fmt.Sscan(v, &n) //nolint:errcheck // refs are made by ref()
	return name, n
}

// Rollback routes stage back to its previous champion: the `from` of its
// latest event (none, if the stage had none before).
func Rollback(ctx context.Context, st Store, stage string) (Routed, error) {
	if err := checkStages([]string{stage}); err != nil {
		return Routed{}, err
	}
	actor := actor()
	var out Routed
	err := withWriter(ctx, st, func(w kb.Writer) error {
		events, err := kb.AdapterEvents(ctx, w.Conn, stage)
		if err != nil {
			return err
		}
		if len(events) == 0 {
			return usage.Errorf("stage %s was never routed to an adapter: nothing to roll back (see `cra adapters list`)", stage)
		}
		last := events[len(events)-1]
		e := kb.AdapterEvent{Stage: stage, Action: kb.ActionRollback, FromName: last.ToName, FromVersion: last.ToVersion,
			ToName: last.FromName, ToVersion: last.FromVersion, Actor: actor}
		if e, err = kb.InsertAdapterEvent(ctx, w.Conn, e); err != nil {
			return err
		}
		out.Events = []kb.AdapterEvent{e}
		return nil
	})
	return out, err
}

// actor is who made a routing change: user@host.
func actor() string {
	name := os.Getenv("USER")
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	host, _ := os.Hostname()
	return name + "@" + host
}
