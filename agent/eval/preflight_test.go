package eval_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/cra-dev/cra/agent/eval"
	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// pings counts the pings sent by the clients of the eval's client
// factory, which pass calls to inner (nil: every call fails).
type pings struct {
	mu     sync.Mutex
	pinged []string // models, in order
	inner  func(llm.ModelConfig) (llm.Client, error)
}

func (p *pings) factory(cfg llm.ModelConfig) (llm.Client, error) {
	c := &countingClient{p: p, model: cfg.Model}
	if p.inner != nil {
		var err error
		if c.inner, err = p.inner(cfg); err != nil {
			return nil, err
		}
	}
	return c, nil
}

type countingClient struct {
	p     *pings
	model string
	inner llm.Client
}

func (c *countingClient) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if req.Prompt == llm.PingPrompt {
		c.p.mu.Lock()
		c.p.pinged = append(c.p.pinged, c.model)
		c.p.mu.Unlock()
	}
	if c.inner == nil {
		return llm.Response{}, errors.New("connection refused")
	}
	return c.inner.Complete(ctx, req)
}

func (c *countingClient) Close() error {
	if c.inner == nil {
		return nil
	}
	return c.inner.Close()
}

// Before any row, eval pings each model its runs call once, through its
// client factory: a model that does not answer stops it with nothing
// written; the stages the oracle answers need no model; a run that goes
// ahead pings once, not once per task.
func TestEvalPingsTheModelsBeforeAnyRow(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, tc := range []struct {
		name   string
		oracle []string
		pinged []string
	}{
		{"no oracle", nil, []string{"r:1b", "c:1b"}},
		{"the coder's stage from the oracle", []string{"implement"}, []string{"r:1b"}},
		// Adjustment has no ground truth: the reasoning model answers it.
		{"every oracle stage", eval.OracleStages, []string{"r:1b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &pings{}
			opts := f.options("down", tc.oracle...)
			opts.NewClient = p.factory
			_, err := eval.Run(context.Background(), opts)
			var ue *llm.UnansweredError
			if !errors.As(err, &ue) || len(ue.Checks) != len(tc.pinged) {
				t.Fatalf("%v: want an UnansweredError naming %v", err, tc.pinged)
			}
			if !slices.Equal(p.pinged, tc.pinged) {
				t.Errorf("pinged %v, want %v", p.pinged, tc.pinged)
			}
		})
	}
	for _, table := range []string{"eval_runs", "eval_tasks", "task_runs", "session_archives"} {
		if n := storetest.Rows(t, f.home, kb.Raw, "SELECT count(*) FROM "+table); n[0] != "0" {
			t.Errorf("%s rows written: %s", table, n[0])
		}
	}
	if entries, _ := os.ReadDir(kb.SessionsDir(f.home)); len(entries) != 0 {
		t.Errorf("sessions left: %v", entries)
	}

	f.plant(nil)
	p := &pings{inner: func(cfg llm.ModelConfig) (llm.Client, error) { return llm.New(cfg) }}
	opts := f.options("up")
	opts.NewClient = p.factory
	rep, err := eval.Run(context.Background(), opts)
	if err != nil || rep.Errors > 0 || rep.Scored != len(f.tasks) {
		t.Fatalf("%v %+v", err, rep)
	}
	if want := []string{"r:1b", "c:1b"}; !slices.Equal(p.pinged, want) {
		t.Errorf("pinged %v over %d tasks, want %v once", p.pinged, len(f.tasks), want)
	}
}
