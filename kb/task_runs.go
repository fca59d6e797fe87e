package kb

import (
	"context"
	"crypto/rand"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/cra-dev/cra/kb/schema"
)

// Modes of task_runs rows besides the orchestrator's pass types
// (schema.Pass*), which are the modes of its passes' rows.
const (
	ModeSolve = "solve"          // a `cra solve` run (and each task an eval solves)
	ModePlan  = schema.StagePlan // a `cra plan` run, named for its one stage
	ModeAsk   = "ask"            // a `cra ask` run (and each question cra ask --eval asks)
	// ModeTrainPlan is the mode of the row every `cra train-plan` that
	// found evidence writes, whether or not it chose a stage (only a
	// chosen stage gives a training_plans row).
	ModeTrainPlan = "train_plan"
)

// TaskRun is one pipeline invocation as raw.task_runs keeps it: a row is
// written when the run starts (Success nil) and finished when it ends.
type TaskRun struct {
	TaskID         string
	RepoPath       string
	Mode           string // ModeSolve, ModePlan, ModeTrainPlan or a pass type
	ExecuteModel   string
	ContextWindow  int
	ReservedTokens int
	Stages         []string
	Started        time.Time
}

// BeginTaskRun records run as started and returns its id.
func BeginTaskRun(ctx context.Context, q Querier, run TaskRun) (int64, error) {
	stages := run.Stages
	if stages == nil {
		stages = []string{}
	}
	var id int64
	err := q.QueryRowContext(ctx, `INSERT INTO task_runs (task_id, repo_path, mode, execute_model, context_window,
		reserved_tokens, stages, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		run.TaskID, run.RepoPath, run.Mode, run.ExecuteModel, run.ContextWindow, run.ReservedTokens, stages, run.Started).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("record task run %s: %w", run.TaskID, err)
	}
	return id, nil
}

// TaskRunEnd is how a run ended.
type TaskRunEnd struct {
	Success      bool
	TotalTokens  int64
	TotalLatency time.Duration
	FinalPlan    any    // plan mode: the plan artifact, stored as JSON; nil for none
	FinalDiff    string // implement mode
	PlanArtifact string // the plan file an implement run followed
}

// FinishTaskRun records how run taskID ended, its final diff bounded to
// MaxDiffBytes.
func FinishTaskRun(ctx context.Context, q Execer, taskID string, end TaskRunEnd) error {
	var plan, diff, artifact any
	if end.FinalPlan != nil {
		js, err := json.Marshal(end.FinalPlan)
		if err != nil {
			return err
		}
		plan = string(js)
	}
	if end.FinalDiff != "" {
		diff = Bound(end.FinalDiff, MaxDiffBytes)
	}
	if end.PlanArtifact != "" {
		artifact = end.PlanArtifact
	}
	_, err := q.ExecContext(ctx, `UPDATE task_runs SET success = ?, total_tokens = ?, total_latency_ms = ?,
		final_plan = ?, final_diff = ?, plan_artifact = ? WHERE task_id = ?`,
		end.Success, end.TotalTokens, end.TotalLatency.Milliseconds(), plan, diff, artifact, taskID)
	if err != nil {
		return fmt.Errorf("finish task run %s: %w", taskID, err)
	}
	return nil
}

// Decision is one candidate file or symbol a retrieval stage kept or left
// out, and why (raw.retrieval_decisions).
type Decision struct {
	TaskID      string
	Stage       string
	FileID      int64
	SymbolID    *int64 // nil for a file-level decision
	DetailLevel string // precision: primary, supporting, type_context, excluded
	Tier        string // scope: the expansion tier
	Rank        int    // scope: the rank within the tier (0: none)
	Included    bool
	Reason      string
	At          time.Time
}

var decisionColumns = []string{"task_id", "stage", "file_id", "symbol_id", "detail_level", "tier", "rank", "included", "reason", "timestamp"}

// AppendDecisions appends decisions through the writer's Appender, in its
// current transaction.
func AppendDecisions(w Writer, decisions []Decision) error {
	rows := make([][]driver.Value, len(decisions))
	for i, d := range decisions {
		var sym, detail, tier, rank, reason any
		if d.SymbolID != nil {
			sym = *d.SymbolID
		}
		if d.DetailLevel != "" {
			detail = d.DetailLevel
		}
		if d.Tier != "" {
			tier = d.Tier
		}
		if d.Rank > 0 {
			rank = int32(d.Rank)
		}
		if d.Reason != "" {
			reason = d.Reason
		}
		rows[i] = []driver.Value{d.TaskID, d.Stage, d.FileID, sym, detail, tier, rank, d.Included, reason, d.At}
	}
	return w.AppendAll("retrieval_decisions", decisionColumns, rows)
}

// AppendRunLog appends a run's decisions and model-less call rows to the
// raw store in home dir, in one transaction.
func AppendRunLog(ctx context.Context, dir, command string, decisions []Decision, calls []LLMCall) error {
	if len(decisions) == 0 && len(calls) == 0 {
		return nil
	}
	return WithWriter(ctx, dir, Raw, Options{Command: command, Wait: BatchWait}, func(w Writer) error {
		return w.Tx(ctx, func() error {
			if err := AppendDecisions(w, decisions); err != nil {
				return err
			}
			return AppendLLMCalls(w, calls)
		})
	})
}

// TaskRunLogged reports whether task taskID has its task_runs row, so a
// resumed run does not write it twice.
func TaskRunLogged(ctx context.Context, q Querier, taskID string) (bool, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM task_runs WHERE task_id = ?`, taskID).Scan(&n); err != nil {
		return false, fmt.Errorf("look up task run %s: %w", taskID, err)
	}
	return n > 0, nil
}

// PassTokens is the tokens the passes of run taskID spent (a resumed
// run's process made only some of the calls).
func PassTokens(ctx context.Context, q Querier, taskID string) (int64, error) {
	var tokens int64
	if err := q.QueryRowContext(ctx, `SELECT coalesce(sum(total_tokens), 0) FROM task_runs WHERE starts_with(task_id, ? || ':')`,
		taskID).Scan(&tokens); err != nil {
		return 0, err
	}
	return tokens, nil
}

// NewTaskID is a fresh run id: the mode, the time and a random suffix.
func NewTaskID(mode string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s-%s-%s", mode, time.Now().UTC().Format("20060102T150405"), hex.EncodeToString(b))
}
