package execute

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// PlanOptions configure one `cra plan` run.
type PlanOptions struct {
	Dir    string // the home
	Repo   string // an indexed repository
	Rev    string // the revision to plan at: the one indexed ("" for whichever is)
	Task   string
	Config config.Config
	// GraphOptions say which files are parsed source (ingest knows).
	GraphOptions retrieval.GraphOptions
	// NewClient builds a model client; nil means llm.New.
	NewClient func(llm.ModelConfig) (llm.Client, error)
	// PingTimeout bounds the preflight's ping of each model (0: llm's
	// default).
	PingTimeout time.Duration
	Log         *slog.Logger
}

// PlanRun is what a plan run did, under one task id.
type PlanRun struct {
	TaskID     string                  `json:"task_id"`
	Plan       schema.PlanArtifact     `json:"plan"`
	Candidates []schema.ScopeCandidate `json:"candidates"`
	Kept       []string                `json:"kept"`
	Symbols    map[string]string       `json:"symbols"` // "path:Qualified.name" → tier
	Enriched   bool                    `json:"enriched"`
}

// PlanStages are the stages a plan run calls a model for.
var PlanStages = []string{schema.StageTaskAnalysis, schema.StageScope, schema.StagePrecision, schema.StagePlan}

// RunPlan runs the pipeline for a plan: preflight, task analysis merged with
// the task's mentions, tiered expansion over the knowledge base, the
// model's scope and precision, then the plan pass. Every model call is a
// retrieval_llm_calls row, every candidate and symbol a retrieval_decisions
// row, and the run a task_runs row, all under one task id. A preflight
// failure is a *retrieval.PreflightError, or an *llm.UnansweredError when
// a model does not answer its ping (nothing is written); answers that
// stay unusable a *retrieval.UnusableAnswerError (the run is recorded as
// failed).
func RunPlan(ctx context.Context, opts PlanOptions) (*PlanRun, error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	ready, err := retrieval.Preflight(ctx, opts.Dir, opts.Config, opts.Repo, llm.RoleReasoning)
	if err != nil {
		return nil, err
	}
	if err := retrieval.CheckRevision(ready.Repo, opts.Rev); err != nil {
		return nil, err
	}
	// Before the run's rows: a model that does not answer would fail the
	// run after its retries.
	if err := llm.CheckStages(ctx, opts.Config, PlanStages,
		llm.PingOptions{Timeout: opts.PingTimeout, NewClient: opts.NewClient}); err != nil {
		return nil, err
	}
	if !ready.Enriched {
		opts.Log.Info("no enrichment for this repository: tier 4 matches words only (run `cra enrich` to add descriptions)")
	}
	curated, err := kb.Open(ctx, opts.Dir, kb.Curated, kb.Options{Command: "cra plan", Wait: kb.BatchWait})
	if err != nil {
		return nil, err
	}
	defer curated.Close()
	g, err := retrieval.LoadKnowledgeGraph(ctx, curated.DB, ready.Repo.ID, opts.GraphOptions)
	if err != nil {
		return nil, err
	}
	run := &PlanRun{TaskID: kb.NewTaskID("plan"), Enriched: ready.Enriched}
	router := llm.NewRouter(opts.Config)
	planModel, err := router.Resolve(llm.RoleReasoning, schema.StagePlan)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := kb.WithWriter(ctx, opts.Dir, kb.Raw, kb.Options{Command: "cra plan", Wait: kb.BatchWait}, func(w kb.Writer) error {
		_, err := kb.BeginTaskRun(ctx, w.Conn, kb.TaskRun{TaskID: run.TaskID, RepoPath: ready.Repo.Path, Mode: kb.ModePlan,
			ExecuteModel: planModel.Model, ContextWindow: opts.Config.Models.ContextWindow,
			ReservedTokens: opts.Config.Budget.ReservedTokens, Stages: PlanStages, Started: start.UTC()})
		return err
	}); err != nil {
		return nil, err
	}
	clients := llm.NewStageClients(router, opts.NewClient, opts.Config.Budget.SafetyMargin, func(ctx context.Context, calls []kb.LLMCall) error {
		return kb.AppendRunLog(ctx, opts.Dir, "cra plan", nil, calls)
	})
	sess, err := kb.OpenSession(opts.Dir, run.TaskID)
	if err != nil {
		return nil, err
	}
	budget, err := llm.NewBudget(opts.Config)
	if err != nil {
		return nil, err
	}
	lim := retrieval.DefaultLimits
	lim.CoChangeMin = opts.Config.Bootstrap.CoChangeMinCount
	pipe := &retrieval.Pipeline{KB: kb.NewKnowledgeBase(curated.DB), Repo: *ready.Repo, Graph: g, Limits: lim, Budget: budget,
		MaxRefinements: opts.Config.Orchestrator.MaxRefinementLoops, Client: clients.Get,
		Record: func(ctx context.Context, d []kb.Decision, c []kb.LLMCall) error {
			return kb.AppendRunLog(ctx, opts.Dir, "cra plan", d, c)
		},
		Session: sess, Execute: schema.StagePlan, Log: opts.Log,
		Render: func(p prompt.Package) prompt.Prompt {
			return prompt.PlanPrompt(prompt.PlanAtomic, prompt.PlanInput{Task: opts.Task, Files: p.Files})
		}}
	runErr := run.stages(ctx, opts, pipe, clients)
	closeErr := clients.Close()
	end := kb.TaskRunEnd{Success: runErr == nil, TotalTokens: clients.Tokens(), TotalLatency: time.Since(start)}
	if runErr == nil {
		end.FinalPlan = run.Plan
	}
	bg := context.WithoutCancel(ctx)
	finishErr := kb.WithWriter(bg, opts.Dir, kb.Raw, kb.Options{Command: "cra plan", Wait: kb.BatchWait}, func(w kb.Writer) error {
		if err := kb.FinishTaskRun(bg, w.Conn, run.TaskID, end); err != nil {
			return err
		}
		return sess.Archive(bg, w) // the run is over, done or failed: its session goes to the raw store
	})
	return run, errors.Join(runErr, closeErr, finishErr)
}

// stages retrieves the task's context, then runs the plan pass on it.
func (run *PlanRun) stages(ctx context.Context, opts PlanOptions, pipe *retrieval.Pipeline, clients *llm.StageClients) error {
	rc, err := pipe.Run(ctx, run.TaskID, opts.Task)
	if rc != nil {
		run.Candidates, run.Kept, run.Symbols = rc.Candidates, rc.KeptPaths(), rc.Symbols
	}
	if err != nil {
		return err
	}
	c, err := clients.Get(schema.StagePlan)
	if err != nil {
		return err
	}
	if run.Plan, err = Plan(ctx, c, run.TaskID, prompt.PlanInput{Task: opts.Task, Files: rc.Package.Files}, pipe.Graph.Exists); err != nil {
		return err
	}
	return errors.Join(pipe.Session.Put("plan_artifact", run.Plan), pipe.Session.Put(retrieval.KeyStageOutput+schema.StagePlan, run.Plan),
		pipe.Session.Put(retrieval.KeyStageProgress, map[string][]string{"completed": append(slices.Clone(retrieval.Stages), schema.StagePlan), "remaining": {}}))
}
