package kb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// The tables of cra distill (raw 0011): runs, the request cache, spending,
// batches and outcomes. The logic lives in curate; these are its reads
// and writes.

// DistillRun is one distill run's row (raw.distill_runs).
type DistillRun struct {
	Name, Teacher, Source string
	Stages                []string
	Batch                 bool
	BudgetUSD             *float64
	Options               any // stored as JSON
	CraVersion            string
	Started               time.Time
}

// BeginDistillRun records run as running and returns its id; runs of the
// same name still running were killed (the caller holds the name's lock)
// and are marked interrupted first.
func BeginDistillRun(ctx context.Context, q QueryExecer, run DistillRun) (int64, error) {
	if _, err := q.ExecContext(ctx, `UPDATE distill_runs SET status = ? WHERE name = ? AND status = ?`,
		StatusInterrupted, run.Name, StatusRunning); err != nil {
		return 0, fmt.Errorf("mark killed distill runs of %s: %w", run.Name, err)
	}
	opts, err := json.Marshal(run.Options)
	if err != nil {
		return 0, err
	}
	stages := run.Stages
	if stages == nil {
		stages = []string{}
	}
	var id int64
	err = q.QueryRowContext(ctx, `INSERT INTO distill_runs (name, teacher, source, stages, batch, budget_usd, options,
		cra_version, started_at, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		run.Name, run.Teacher, run.Source, stages, run.Batch, run.BudgetUSD, string(opts), run.CraVersion, run.Started, StatusRunning).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("record distill run: %w", err)
	}
	return id, nil
}

// FinishDistillRun records how run id ended (a Status*) and what stopped
// it before the end ("" for nothing).
func FinishDistillRun(ctx context.Context, q Execer, id int64, status, stopped string) error {
	_, err := q.ExecContext(ctx, `UPDATE distill_runs SET status = ?, stopped = nullif(?, ''), finished_at = ? WHERE id = ?`,
		status, stopped, time.Now().UTC(), id)
	return err
}

// DistillCacheEntry is one cached teacher answer (raw.distill_cache).
type DistillCacheEntry struct {
	Key, Model, Response, Thinking               string
	PromptTokens, CachedTokens, CompletionTokens *int
	CostUSD                                      float64
	BatchID                                      string
	CallTaskID                                   string
	RunID                                        int64
	At                                           time.Time
}

var distillCacheColumns = []string{"request_key", "model", "response", "thinking", "prompt_tokens", "cached_tokens",
	"completion_tokens", "cost_usd", "batch_id", "call_task_id", "run_id", "created_at"}

// AppendDistillCache appends entries whose key is not cached yet, in the
// writer's current transaction.
func AppendDistillCache(ctx context.Context, w Writer, entries []DistillCacheEntry) error {
	rows := make([][]driver.Value, len(entries))
	for i, e := range entries {
		rows[i] = []driver.Value{e.Key, e.Model, e.Response, nullString(e.Thinking), nullInt(e.PromptTokens), nullInt(e.CachedTokens),
			nullInt(e.CompletionTokens), e.CostUSD, nullString(e.BatchID), e.CallTaskID, e.RunID, e.At}
	}
	_, err := w.AppendNew(ctx, "distill_cache", distillCacheColumns, []string{"request_key"}, rows)
	return err
}

// keyChunk bounds the keys one lookup query carries.
const keyChunk = 5000

// LoadDistillCache returns the cached answers of keys.
func LoadDistillCache(ctx context.Context, q Querier, keys []string) (map[string]DistillCacheEntry, error) {
	out := make(map[string]DistillCacheEntry, len(keys))
	for lo := 0; lo < len(keys); lo += keyChunk {
		chunk := keys[lo:min(lo+keyChunk, len(keys))]
		rows, err := q.QueryContext(ctx, `SELECT request_key, model, response, coalesce(thinking, ''), prompt_tokens, cached_tokens,
			completion_tokens, cost_usd, coalesce(batch_id, ''), call_task_id, run_id, created_at
			FROM distill_cache WHERE request_key IN (SELECT unnest(?::VARCHAR[]))`, chunk)
		if err != nil {
			return nil, fmt.Errorf("read the distill cache: %w", err)
		}
		for rows.Next() {
			var e DistillCacheEntry
			var pt, ct, out2 sql.NullInt64
			if err := rows.Scan(&e.Key, &e.Model, &e.Response, &e.Thinking, &pt, &ct, &out2, &e.CostUSD, &e.BatchID,
				&e.CallTaskID, &e.RunID, &e.At); err != nil {
				rows.Close()
				return nil, err
			}
			e.PromptTokens, e.CachedTokens, e.CompletionTokens = intOf(pt), intOf(ct), intOf(out2)
			out[e.Key] = e
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// DistillReservation is a request about to be sent, with the most it can
// cost.
type DistillReservation struct {
	RunID       int64
	Name, Key   string
	Batch       string // distill_batches.id; "" for a live call
	ReservedUSD float64
	At          time.Time
}

// ReserveDistillSpend records reservations, unsettled.
func ReserveDistillSpend(w Writer, rs []DistillReservation) error {
	rows := make([][]driver.Value, len(rs))
	for i, r := range rs {
		rows[i] = []driver.Value{r.RunID, r.Name, r.Key, nullString(r.Batch), r.ReservedUSD, r.At}
	}
	return w.AppendAll("distill_spend", []string{"run_id", "name", "request_key", "batch", "reserved_usd", "reserved_at"}, rows)
}

// SettleDistillSpend records what a live request of run cost.
func SettleDistillSpend(ctx context.Context, q Execer, runID int64, key string, usd float64) error {
	_, err := q.ExecContext(ctx, `UPDATE distill_spend SET settled_usd = ?, settled_at = ?
		WHERE run_id = ? AND request_key = ? AND batch IS NULL AND settled_usd IS NULL`, usd, time.Now().UTC(), runID, key)
	return err
}

// SettleDistillBatch records what each request of a batch cost (costs by
// request key); requests of the batch not in costs cost nothing (the API
// charges no failed request).
func SettleDistillBatch(ctx context.Context, q Execer, batch string, costs map[string]float64) error {
	keys := make([]string, 0, len(costs))
	usd := make([]float64, 0, len(costs))
	for k, v := range costs {
		keys, usd = append(keys, k), append(usd, v)
	}
	now := time.Now().UTC()
	if _, err := q.ExecContext(ctx, `UPDATE distill_spend s SET settled_usd = c.usd, settled_at = $1
		FROM (SELECT unnest($2::VARCHAR[]) AS k, unnest($3::DOUBLE[]) AS usd) c
		WHERE s.batch = $4 AND s.request_key = c.k AND s.settled_usd IS NULL`, now, keys, usd, batch); err != nil {
		return err
	}
	_, err := q.ExecContext(ctx, `UPDATE distill_spend SET settled_usd = 0, settled_at = ? WHERE batch = ? AND settled_usd IS NULL`, now, batch)
	return err
}

// DistillSpent is what distillation name has spent: settled costs, and
// reservations never settled at the most they could have cost.
func DistillSpent(ctx context.Context, q Querier, name string) (float64, error) {
	var usd float64
	err := q.QueryRowContext(ctx, `SELECT coalesce(sum(coalesce(settled_usd, reserved_usd)), 0) FROM distill_spend WHERE name = ?`, name).Scan(&usd)
	return usd, err
}

// DistillBatch is a batch of a distillation (raw.distill_batches).
type DistillBatch struct {
	ID, Name, Model, Input    string
	RunID                     int64
	CustomIDs, Stages         []string
	InputFileID, BatchID      string
	Status                    string
	OutputFileID, ErrorFileID string
	Created                   time.Time
}

// Statuses of a batch beyond the API's own.
const (
	DistillBatchPending    = "pending"    // recorded and reserved, not uploaded
	DistillBatchUploaded   = "uploaded"   // its input file is uploaded, no batch known
	DistillBatchDownloaded = "downloaded" // its results are in the cache
)

// InsertDistillBatch records a new batch, pending.
func InsertDistillBatch(ctx context.Context, q Execer, b DistillBatch) error {
	_, err := q.ExecContext(ctx, `INSERT INTO distill_batches (id, name, run_id, model, input, custom_ids, stages, status,
		created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		b.ID, b.Name, b.RunID, b.Model, b.Input, b.CustomIDs, b.Stages, DistillBatchPending, b.Created, b.Created)
	return err
}

// UpdateDistillBatch records what is known of batch b now.
func UpdateDistillBatch(ctx context.Context, q Execer, b DistillBatch) error {
	_, err := q.ExecContext(ctx, `UPDATE distill_batches SET input_file_id = nullif(?, ''), batch_id = nullif(?, ''), status = ?,
		output_file_id = nullif(?, ''), error_file_id = nullif(?, ''), updated_at = ? WHERE id = ?`,
		b.InputFileID, b.BatchID, b.Status, b.OutputFileID, b.ErrorFileID, time.Now().UTC(), b.ID)
	return err
}

// OpenDistillBatches are the batches of name whose results are not in the
// cache yet, oldest first.
func OpenDistillBatches(ctx context.Context, q Querier, name string) ([]DistillBatch, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, name, run_id, model, input, custom_ids, stages, coalesce(input_file_id, ''),
		coalesce(batch_id, ''), status, coalesce(output_file_id, ''), coalesce(error_file_id, ''), created_at
		FROM distill_batches WHERE name = ? AND status NOT IN ('downloaded', 'failed', 'expired', 'cancelled')
		ORDER BY created_at, id`, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []DistillBatch
	for rows.Next() {
		var b DistillBatch
		if err := rows.Scan(&b.ID, &b.Name, &b.RunID, &b.Model, &b.Input, stringList{&b.CustomIDs}, stringList{&b.Stages},
			&b.InputFileID, &b.BatchID, &b.Status, &b.OutputFileID, &b.ErrorFileID, &b.Created); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// DistillOutcome is one item's teacher answer and its verification
// (raw.distill_outcomes).
type DistillOutcome struct {
	Name, ItemID, Source, Stage string
	TaskID                      string // "" when there is no ground truth
	StudentCallID               *int64
	Key, CallTaskID             string
	RunID                       int64
	RepoPath, Commit, Split     string
	Verified                    bool
	Checked, Reason             string
	Score                       *float64
	ExampleID                   string    // "" unless verified
	Messages                    []Message // nil unless verified
	PromptTokens                int
	CompletionTokens            int
	At                          time.Time
}

var distillOutcomeColumns = []string{"name", "item_id", "source", "stage", "task_id", "student_call_id", "request_key",
	"call_task_id", "run_id", "repo_path", "commit", "split", "verified", "checked", "reason", "score", "example_id", "messages",
	"prompt_tokens", "completion_tokens", "created_at"}

// AppendDistillOutcomes appends outcomes not recorded yet (by name, item
// and request), in the writer's current transaction.
func AppendDistillOutcomes(ctx context.Context, w Writer, outcomes []DistillOutcome) error {
	rows := make([][]driver.Value, len(outcomes))
	for i, o := range outcomes {
		var msgs, student, score, tokensIn, tokensOut any
		if o.Messages != nil {
			list := make([]map[string]any, len(o.Messages))
			for j, m := range o.Messages {
				list[j] = map[string]any{"role": m.Role, "content": m.Content}
			}
			msgs, tokensIn, tokensOut = list, int32(o.PromptTokens), int32(o.CompletionTokens)
		}
		if o.StudentCallID != nil {
			student = *o.StudentCallID
		}
		if o.Score != nil {
			score = *o.Score
		}
		rows[i] = []driver.Value{o.Name, o.ItemID, o.Source, o.Stage, nullString(o.TaskID), student, o.Key, o.CallTaskID,
			o.RunID, o.RepoPath, nullString(o.Commit), o.Split, o.Verified, o.Checked, o.Reason, score, nullString(o.ExampleID), msgs,
			tokensIn, tokensOut, o.At}
	}
	_, err := w.AppendNew(ctx, "distill_outcomes", distillOutcomeColumns, []string{"name", "item_id", "request_key"}, rows)
	return err
}

// StageDistilledExamples stages the examples of distillation name — its
// verified answers, every run's — as version v of the dataset of that
// name (source distilled), in the writer's current transaction, for
// RegisterDatasetVersion to make visible.
func StageDistilledExamples(ctx context.Context, q Execer, name string, v int) error {
	_, err := q.ExecContext(ctx, `INSERT INTO `+stagingTable+` (id, dataset, version, stage, source, split,
		label, repo_path, commit, target_id, messages, prompt_tokens, completion_tokens, created_at)
		SELECT example_id, name, ?, stage, 'distilled', split, 'positive', repo_path, commit, item_id, messages,
			prompt_tokens, completion_tokens, now()
		FROM distill_outcomes WHERE name = ? AND example_id IS NOT NULL`, v, name)
	if err != nil {
		return fmt.Errorf("stage the examples of %s: %w", DatasetRef{Name: name, Version: v}, err)
	}
	return nil
}

// DistillDone says which items of name need no teacher call: those with a
// verified answer, and those this very request was already answered and
// judged for (item id + "\x00" + request key).
func DistillDone(ctx context.Context, q Querier, name string) (verified, judged map[string]bool, err error) {
	rows, err := q.QueryContext(ctx, `SELECT item_id, request_key, verified FROM distill_outcomes WHERE name = ?`, name)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	verified, judged = map[string]bool{}, map[string]bool{}
	for rows.Next() {
		var item, key string
		var ok bool
		if err := rows.Scan(&item, &key, &ok); err != nil {
			return nil, nil, err
		}
		judged[item+"\x00"+key] = true
		if ok {
			verified[item] = true
		}
	}
	return verified, judged, rows.Err()
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullInt(n *int) any {
	if n == nil {
		return nil
	}
	return int32(*n)
}

func intOf(n sql.NullInt64) *int {
	if !n.Valid {
		return nil
	}
	v := int(n.Int64)
	return &v
}
