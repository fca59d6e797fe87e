package distill

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/curate"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/progress"
	"github.com/cra-dev/cra/internal/secrets"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/internal/version"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// Where distill's prompts come from.
const (
	FromSynthetic  = "synthetic"   // bootstrap's tasks, rendered as the student sees them
	FromFailedRuns = "failed-runs" // the logged prompts of the student's calls in failed runs
)

// DefaultName is the distillation (and dataset) name when none is
// given.
const DefaultName = "distilled"

// Why a distill run stopped before every item was done.
const (
	StopBudget   = "budget"    // the next call could take spending past --budget-usd
	StopMaxCalls = "max_calls" // --max-calls requests were sent
	// StopProviderFault: an answer reported more completion tokens than
	// its request allowed (ProviderFaultError).
	StopProviderFault = "provider_fault"
)

// Options configure one cra distill run.
type Options struct {
	// Name is the distillation: its spending adds up across runs and its
	// verified answers make the dataset of that name.
	Name   string
	From   string   // FromSynthetic (default) or FromFailedRuns
	Stages []string // default: every synthetic stage
	Repos  []string // only these repositories; empty means all
	// Sample, when > 0, takes that many tasks (synthetic) or student calls
	// (failed-runs), chosen by a hash of Seed and their ids.
	Sample int
	Seed   int64
	// Teacher is the resolved teacher model (llm.Teacher).
	Teacher llm.ModelConfig
	Prices  config.TeacherPrices
	Verify  config.TeacherVerify
	// Curate gives the validation split's share and what to do with
	// credentials in an example.
	Curate config.Curate
	// Budget is the student's prompt budget: prompts are rendered as the
	// student sees them, fitted to its window. Its safety margin is the
	// estimate's stated margin.
	Budget llm.Budget
	// BudgetUSD caps what Name may have spent in all (nil: no cap).
	BudgetUSD *float64
	MaxCalls  int // requests sent this run at most; 0: no limit
	DryRun    bool
	Batch     bool          // through the Batch API
	BatchPoll time.Duration // how often to ask about batches
	Jobs      int           // live calls in flight at once
	// Wait is how long to wait for another run of the same Name.
	Wait     time.Duration
	Log      *slog.Logger
	Progress progress.Reporter // where the run says how far it got
	// ClientOptions are given to llm.New and llm.NewBatches.
	ClientOptions []llm.Option
	// TrainingPlan is the training plan (JSON) the selection came from,
	// recorded with the dataset version.
	TrainingPlan []byte
}

// Run runs the distillation opts.Name in home dir: the selected items'
// prompts go to the teacher (from the cache when asked before), each answer
// is verified against its ground truth, and the verified ones become the
// next version of the dataset opts.Name. A dry run says what it would cost
// and calls nothing.
func Run(ctx context.Context, dir string, opts Options) (*Summary, error) {
	opts, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	if opts.DryRun {
		var sum *Summary
		err := kb.WithWriter(ctx, dir, kb.Raw, kb.Options{Command: "cra distill --dry-run", Wait: kb.BatchWait},
			func(w kb.Writer) (err error) {
				sum, err = dryRun(ctx, w, opts)
				return err
			})
		return sum, err
	}
	// The name is a dataset's: one run builds it at a time, curate-data's
	// or distill's, for the whole run.
	lock, err := kb.LockInput(ctx, dir, curate.DatasetLock, opts.Name, "cra distill --name "+opts.Name, opts.Wait)
	if err != nil {
		return nil, err
	}
	defer lock.Release() //nolint:errcheck // dropped at exit anyway
	if opts.Batch {
		return distillBatches(ctx, dir, opts)
	}
	var sum *Summary
	err = kb.WithWriter(ctx, dir, kb.Raw, kb.Options{Command: "cra distill", Wait: kb.BatchWait},
		func(w kb.Writer) (err error) {
			sum, err = distillLive(ctx, w, opts)
			return err
		})
	return sum, err
}

func (opts Options) normalize() (Options, error) {
	if opts.Name == "" {
		opts.Name = DefaultName
	}
	if strings.ContainsAny(opts.Name, "@/\\\x00") {
		return opts, usage.Errorf("name %q: give a name without @, / or \\", opts.Name)
	}
	if opts.From == "" {
		opts.From = FromSynthetic
	}
	if opts.From != FromSynthetic && opts.From != FromFailedRuns {
		return opts, usage.Errorf("--from %q: use %s or %s", opts.From, FromSynthetic, FromFailedRuns)
	}
	if len(opts.Stages) == 0 {
		opts.Stages = schema.SyntheticStages
	}
	for _, s := range opts.Stages {
		if !slices.Contains(schema.SyntheticStages, s) {
			return opts, usage.Errorf("stage %q: distill knows %s", s, strings.Join(schema.SyntheticStages, ", "))
		}
	}
	if opts.Curate.Secrets != secrets.ModeRedact && opts.Curate.Secrets != secrets.ModeDrop {
		return opts, usage.Errorf("curate.secrets %q: use redact or drop", opts.Curate.Secrets)
	}
	if opts.Teacher.Model == "" {
		return opts, usage.Errorf("no teacher model: set teacher.model and teacher.base_url in config.toml, or pass --teacher")
	}
	if opts.Teacher.MaxTokens <= 0 {
		return opts, usage.Errorf("teacher.max_tokens must be set: it bounds what a call can cost")
	}
	if opts.BudgetUSD != nil && opts.Prices.Zero() {
		return opts, usage.Errorf("--budget-usd needs the teacher's prices: set [teacher.prices] input_per_million and output_per_million in config.toml")
	}
	if opts.BudgetUSD != nil && *opts.BudgetUSD < 0 {
		return opts, usage.Errorf("--budget-usd must not be negative")
	}
	if opts.Jobs <= 0 {
		opts.Jobs = max(opts.Teacher.MaxConcurrency, 1)
	}
	// --jobs is the teacher calls in flight: the client must allow them.
	opts.Teacher.MaxConcurrency = opts.Jobs
	if opts.BatchPoll <= 0 {
		opts.BatchPoll = 30 * time.Second
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Progress == nil {
		opts.Progress = progress.Discard
	}
	return opts, nil
}

// distiller is one run on the raw store's writer: its selection, its
// teacher client, its spending, its summary.
type distiller struct {
	opts  Options
	w     kb.Writer
	wmu   sync.Mutex // one transaction at a time on w
	runID int64
	price pricing
	spend *ledger

	smu   sync.Mutex // guards sum, stop and fault
	sum   *Summary
	stop  string
	fault error // the first ProviderFaultError: the run ends with it

	cmu   sync.Mutex // guards calls
	calls []kb.LLMCall

	sent  atomic.Int64 // requests sent (or put in a batch) this run, for --max-calls
	turns int64        // the next call's turn in the ledger (the dispatcher's)
}

func newDistiller(opts Options) *distiller {
	sum := &Summary{Name: opts.Name, Teacher: opts.Teacher.Model, Source: opts.From, DryRun: opts.DryRun,
		Batch: opts.Batch, Skipped: map[string]int{}, Stages: map[string]*StageSummary{}, BudgetUSD: opts.BudgetUSD,
		Margin: opts.Budget.SafetyMargin}
	for _, s := range opts.Stages {
		sum.Stages[s] = &StageSummary{}
	}
	return &distiller{opts: opts, sum: sum, price: pricing{prices: opts.Prices, batch: opts.Batch}}
}

// tx runs fn in one transaction on the writer, with a context that the
// run's interruption does not cancel: what a paid answer brings, and how
// the run ended, are stored even as the run is being interrupted.
func (d *distiller) tx(ctx context.Context, fn func(ctx context.Context) error) error {
	d.wmu.Lock()
	defer d.wmu.Unlock()
	ctx = context.WithoutCancel(ctx)
	return d.w.Tx(ctx, func() error { return fn(ctx) })
}

// begin records the run and sets up its spending.
func (d *distiller) begin(ctx context.Context) error {
	opts := d.opts
	return d.tx(ctx, func(ctx context.Context) (err error) {
		d.runID, err = kb.BeginDistillRun(ctx, d.w.Conn, kb.DistillRun{Name: opts.Name, Teacher: opts.Teacher.Model,
			Source: opts.From, Stages: opts.Stages, Batch: opts.Batch, BudgetUSD: opts.BudgetUSD,
			Options: map[string]any{"repos": opts.Repos, "sample": opts.Sample, "seed": opts.Seed, "max_calls": opts.MaxCalls,
				"jobs": opts.Jobs}, CraVersion: version.String(), Started: time.Now().UTC()})
		if err != nil {
			return err
		}
		d.sum.RunID = d.runID
		spent, err := kb.DistillSpent(ctx, d.w.Conn, opts.Name)
		d.spend = newLedger(toNanos(spent), opts.BudgetUSD)
		return err
	})
}

// finish records how the run ended and fills in the money of the summary.
func (d *distiller) finish(ctx context.Context, runErr error) error {
	d.fillLeft()
	status := kb.StatusOK
	d.smu.Lock()
	switch {
	case errors.Is(runErr, context.Canceled) || ctx.Err() != nil:
		status, d.sum.Stopped = kb.StatusInterrupted, kb.StatusInterrupted
	case runErr != nil:
		status = kb.StatusFailed
	case d.stop != "" || d.sum.Totals.Failed > 0:
		status = kb.StatusPartial
	}
	if d.stop != "" && d.sum.Stopped == "" {
		d.sum.Stopped = d.stop
	}
	stopped := d.stop
	d.smu.Unlock()
	return d.tx(ctx, func(ctx context.Context) error {
		spent, err := kb.DistillSpent(ctx, d.w.Conn, d.opts.Name)
		if err != nil {
			return err
		}
		d.fillMoney(spent)
		return kb.FinishDistillRun(ctx, d.w.Conn, d.runID, status, stopped)
	})
}

// stopWith stops the run's further calls for reason (the first reason
// stays).
func (d *distiller) stopWith(reason string) {
	d.smu.Lock()
	defer d.smu.Unlock()
	if d.stop == "" {
		d.stop = reason
	}
}

// failWith stops the run for a fault of the provider's: no call starts
// after it, the calls in flight settle, and the run ends with err (the
// first fault stays).
func (d *distiller) failWith(err error) {
	d.smu.Lock()
	if d.fault == nil {
		d.fault = err
	}
	if d.stop == "" {
		d.stop = StopProviderFault
	}
	d.smu.Unlock()
	d.spend.halt()
}

// faulted is the fault the run stopped for, or nil.
func (d *distiller) faulted() error {
	d.smu.Lock()
	defer d.smu.Unlock()
	return d.fault
}

func (d *distiller) stopped() bool {
	d.smu.Lock()
	defer d.smu.Unlock()
	return d.stop != ""
}

// fatal reports whether err stops the run: every later call would fail
// the same way (the key is refused, the model is unknown, the client is
// misconfigured).
func fatal(err error) bool {
	return errors.Is(err, llm.ErrAuth) || errors.Is(err, llm.ErrModelNotFound) || errors.Is(err, llm.ErrInvalidConfig) ||
		errors.Is(err, llm.ErrClosed)
}

// ProviderFaultError is an answer whose reported usage its request did
// not allow: more completion tokens than max_tokens. What the provider
// reports (and may bill) is then no longer bounded by what cra reserved,
// so the run stops rather than trust the budget to it.
type ProviderFaultError struct {
	Provider, BaseURL, Model string
	Reported, Allowed        int64 // completion tokens: reported, max_tokens
}

func (e *ProviderFaultError) Error() string {
	return fmt.Sprintf("teacher %s (%s at %s) reported %d completion tokens for a request that allowed %d (max_tokens): "+
		"a provider fault, so its usage cannot bound what --budget-usd reserves; the run stopped, the call is logged, "+
		"its answer is not kept and its reported cost counts as spent: check the provider's usage and billing, "+
		"or use another teacher, before running again", e.Model, e.Provider, e.BaseURL, e.Reported, e.Allowed)
}

// overReported is the fault of resp, an answer to j, when it reports more
// completion tokens than j allowed; nil otherwise.
func (d *distiller) overReported(j *job, resp llm.Response) *ProviderFaultError {
	allowed := boundCompletion(j.body)
	if resp.CompletionTokens == nil || int64(*resp.CompletionTokens) <= allowed {
		return nil
	}
	t := d.opts.Teacher
	return &ProviderFaultError{Provider: t.Provider, BaseURL: t.BaseURL, Model: t.Model,
		Reported: int64(*resp.CompletionTokens), Allowed: allowed}
}

// newTeacher builds the logged teacher client. Its call rows are kept
// (Flush hands them over) until the transaction that stores what the call
// brought: a call's row and its answer are stored together or not at all.
// It sends a request once a call (llm.WithSendOnce): a send that may have
// been billed without an answer reaching us fails the call, its
// reservation kept as spent, and only a later run, reserving again, sends
// it again.
func (d *distiller) newTeacher() (*llm.Logged, error) {
	inner, err := llm.New(d.opts.Teacher, append([]llm.Option{llm.WithSendOnce()}, d.opts.ClientOptions...)...)
	if err != nil {
		return nil, usage.Errorf("teacher: %v", err)
	}
	return llm.NewLogged(inner, d.opts.Teacher, func(_ context.Context, calls []kb.LLMCall) error {
		d.cmu.Lock()
		defer d.cmu.Unlock()
		d.calls = append(d.calls, calls...)
		return nil
	}), nil
}

// appendCalls stores the call rows handed over so far, in the writer's
// current transaction.
func (d *distiller) appendCalls() error {
	d.cmu.Lock()
	calls := d.calls
	d.calls = nil
	d.cmu.Unlock()
	return kb.AppendLLMCalls(d.w, calls)
}

func (d *distiller) logf(msg string, args ...any) { d.opts.Log.Info(msg, args...) }

// PlanStages reads the stages a training plan (JSON) selects: its
// "target_stage", its data_criteria's "stages", or its own "stages".
func PlanStages(plan []byte) ([]string, error) {
	var p struct {
		TargetStage  string   `json:"target_stage"`
		Stages       []string `json:"stages"`
		DataCriteria struct {
			Stages []string `json:"stages"`
		} `json:"data_criteria"`
	}
	if err := json.Unmarshal(plan, &p); err != nil {
		return nil, usage.Errorf("training plan: %v", err)
	}
	var out []string
	for _, s := range append(append([]string{p.TargetStage}, p.DataCriteria.Stages...), p.Stages...) {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, usage.Errorf("training plan names no stage (target_stage, data_criteria.stages or stages)")
	}
	return out, nil
}
