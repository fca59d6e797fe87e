package kb

import (
	"context"
	"testing"
	"time"
)

// A run's row is written when it starts and finished when it ends; its
// decisions are rows of their own, file- and symbol-level.
func TestTaskRunAndDecisions(t *testing.T) {
	t.Parallel()
	dir := initHome(t)
	ctx := context.Background()
	sym := int64(7)
	err := WithWriter(ctx, dir, Raw, Options{}, func(w Writer) error {
		id, err := BeginTaskRun(ctx, w.Conn, TaskRun{TaskID: "run1", RepoPath: "/r", Mode: "plan", ExecuteModel: "m",
			ContextWindow: 32768, ReservedTokens: 8192, Stages: []string{"scope", "precision", "plan"}, Started: time.Now()})
		if err != nil || id == 0 {
			t.Fatalf("begin: %d, %v", id, err)
		}
		if err := w.Tx(ctx, func() error {
			return AppendDecisions(w, []Decision{
				{TaskID: "run1", Stage: "scope", FileID: 3, Tier: "1", Included: true, Reason: "kept by the model", At: time.Now()},
				{TaskID: "run1", Stage: "precision", FileID: 3, SymbolID: &sym, DetailLevel: "primary", Included: true, At: time.Now()},
			})
		}); err != nil {
			return err
		}
		return FinishTaskRun(ctx, w.Conn, "run1", TaskRunEnd{Success: true, TotalTokens: 1200, TotalLatency: 3 * time.Second,
			FinalPlan: map[string]any{"task_summary": "s"}})
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, dir, Raw, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var success bool
	var tokens, latency int64
	var plan string
	if err := s.DB.QueryRow(`SELECT success, total_tokens, total_latency_ms, final_plan->>'task_summary' FROM task_runs WHERE task_id = 'run1'`).
		Scan(&success, &tokens, &latency, &plan); err != nil || !success || tokens != 1200 || latency != 3000 || plan != "s" {
		t.Errorf("task run: %v %d %d %q (%v)", success, tokens, latency, plan, err)
	}
	var n, symbols int
	if err := s.DB.QueryRow(`SELECT count(*), count(symbol_id) FROM retrieval_decisions WHERE task_id = 'run1'`).Scan(&n, &symbols); err != nil || n != 2 || symbols != 1 {
		t.Errorf("decisions: %d rows, %d symbol-level (%v)", n, symbols, err)
	}
}
