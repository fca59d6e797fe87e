package execute

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
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
	Task   string
	Config config.Config
	// GraphOptions say which files are parsed source (ingest knows).
	GraphOptions retrieval.GraphOptions
	// NewClient builds a model client; nil means llm.New.
	NewClient func(llm.ModelConfig) (llm.Client, error)
	Log       *slog.Logger
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

// RunPlan runs the pipeline for a plan: preflight, task analysis merged with
// the task's mentions, tiered expansion over the knowledge base, the
// model's scope and precision, then the plan pass. Every model call is a
// retrieval_llm_calls row, every candidate and symbol a retrieval_decisions
// row, and the run a task_runs row, all under one task id. A preflight
// failure is a *retrieval.PreflightError; answers that stay unusable a
// *retrieval.UnusableAnswerError (the run is recorded as failed).
func RunPlan(ctx context.Context, opts PlanOptions) (*PlanRun, error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.NewClient == nil {
		opts.NewClient = func(cfg llm.ModelConfig) (llm.Client, error) { return llm.New(cfg) }
	}
	ready, err := retrieval.Preflight(ctx, opts.Dir, opts.Config, opts.Repo, llm.RoleReasoning)
	if err != nil {
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
	run := &PlanRun{TaskID: newTaskID("plan"), Enriched: ready.Enriched}
	stages := []string{schema.StageTaskAnalysis, schema.StageScope, schema.StagePrecision, schema.StagePlan}
	router := llm.NewRouter(opts.Config.Models)
	planModel, err := router.Resolve(llm.RoleReasoning, schema.StagePlan)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := kb.WithWriter(ctx, opts.Dir, kb.Raw, kb.Options{Command: "cra plan", Wait: kb.BatchWait}, func(w kb.Writer) error {
		_, err := kb.BeginTaskRun(ctx, w.Conn, kb.TaskRun{TaskID: run.TaskID, RepoPath: ready.Repo.Path, Mode: "plan",
			ExecuteModel: planModel.Model, ContextWindow: opts.Config.Models.ContextWindow,
			ReservedTokens: opts.Config.Budget.ReservedTokens, Stages: stages, Started: start.UTC()})
		return err
	}); err != nil {
		return nil, err
	}
	clients := &stageClients{dir: opts.Dir, router: router, newClient: opts.NewClient, byStage: map[string]*llm.Logged{}}
	sess, err := kb.OpenSession(opts.Dir, run.TaskID)
	if err != nil {
		return nil, err
	}
	st := &sessionState{s: sess, remaining: stages}
	runErr := errors.Join(sess.Put("task_query", map[string]string{"task": opts.Task, "repo": ready.Repo.Path}),
		run.stages(ctx, opts, g, clients, st))
	closeErr := clients.close()
	end := kb.TaskRunEnd{Success: runErr == nil, TotalLatency: time.Since(start)}
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

// stages runs the pipeline's stages, recording their decisions.
func (run *PlanRun) stages(ctx context.Context, opts PlanOptions, g *retrieval.KnowledgeGraph, clients *stageClients, st *sessionState) error {
	client := func(stage string) (llm.Client, error) { return clients.get(stage) }
	c, err := client(schema.StageTaskAnalysis)
	if err != nil {
		return err
	}
	_, seeds, err := retrieval.AnalyzeTask(ctx, c, run.TaskID, opts.Task, g)
	var unusable *retrieval.UnusableAnswerError
	switch {
	case errors.As(err, &unusable):
		opts.Log.Warn("task analysis unusable: seeding from the task's own words", "error", err)
		seeds = retrieval.Mentions(opts.Task, g)
	case err != nil:
		return err
	}
	lim := retrieval.DefaultLimits
	lim.CoChangeMin = opts.Config.Bootstrap.CoChangeMinCount
	if err := st.done(schema.StageTaskAnalysis, seeds); err != nil {
		return err
	}
	run.Candidates = retrieval.ExpandFrom(g, seeds, opts.Task, lim)
	if c, err = client(schema.StageScope); err != nil {
		return err
	}
	scope, err := retrieval.Scope(ctx, c, run.TaskID, opts.Task, run.Candidates, g.FileIDs())
	if err != nil {
		return err
	}
	if err := st.done(schema.StageScope, map[string]any{"candidates": run.Candidates, "kept": scope.Kept}); err != nil {
		return err
	}
	decisions := scope.Decisions
	var syms []retrieval.SymbolCandidate
	for _, cand := range scope.Kept {
		run.Kept = append(run.Kept, cand.Path)
	}
	if syms, err = symbolsOf(ctx, opts, g, run.Kept); err != nil {
		return err
	}
	run.Symbols = map[string]string{}
	var in prompt.PlanInput
	if len(syms) > 0 {
		if c, err = client(schema.StagePrecision); err != nil {
			return err
		}
		prec, err := retrieval.Precision(ctx, c, run.TaskID, opts.Task, syms)
		if err != nil {
			return err
		}
		run.Symbols, decisions = prec.Tiers, append(decisions, prec.Decisions...)
	}
	if err := st.done(schema.StagePrecision, run.Symbols); err != nil {
		return err
	}
	budget, err := llm.NewBudget(opts.Config)
	if err != nil {
		return err
	}
	assembled, asmErr := retrieval.Assemble(opts.Task, run.Kept, syms, run.Symbols, budget)
	in = assembled.Input
	if err := st.s.Put("final_context", map[string]any{"plan_input": in, "cut": assembled.Cut}); err != nil {
		return err
	}
	var assembly []kb.LLMCall
	if len(assembled.Cut) > 0 || asmErr != nil {
		// What was cut to fit, as the spec's "assembly" row: no model call.
		cut := strings.Join(assembled.Cut, "\n")
		row := kb.LLMCall{TaskID: run.TaskID, CallType: "assembly", StageName: schema.StagePlan, Model: "none", Provider: "cra",
			Prompt: fmt.Sprintf("fit the plan context to %d tokens", budget.ContextLimit()), Response: &cut, At: time.Now().UTC()}
		if asmErr != nil {
			row.Error = asmErr.Error()
		}
		assembly = append(assembly, row)
	}
	if err := kb.WithWriter(ctx, opts.Dir, kb.Raw, kb.Options{Command: "cra plan", Wait: kb.BatchWait}, func(w kb.Writer) error {
		return w.Tx(ctx, func() error {
			if err := kb.AppendDecisions(w, decisions); err != nil {
				return err
			}
			return kb.AppendLLMCalls(w, assembly)
		})
	}); err != nil {
		return err
	}
	if asmErr != nil {
		return asmErr
	}
	if c, err = client(schema.StagePlan); err != nil {
		return err
	}
	if run.Plan, err = Plan(ctx, c, run.TaskID, in, g.Exists); err != nil {
		return err
	}
	if err := st.s.Put("plan_artifact", run.Plan); err != nil {
		return err
	}
	return st.done(schema.StagePlan, run.Plan)
}

// sessionState records each finished stage in the run's session: its
// output (stage_output_<stage>) and the progress (stage_progress).
type sessionState struct {
	s                    *kb.Session
	completed, remaining []string
}

func (st *sessionState) done(stage string, output any) error {
	st.completed = append(st.completed, stage)
	st.remaining = slices.DeleteFunc(slices.Clone(st.remaining), func(s string) bool { return s == stage })
	return errors.Join(st.s.Put("stage_output_"+stage, output),
		st.s.Put("stage_progress", map[string][]string{"completed": st.completed, "remaining": st.remaining}))
}

// symbolsOf lists the symbols of the kept files, in file order.
func symbolsOf(ctx context.Context, opts PlanOptions, g *retrieval.KnowledgeGraph, paths []string) ([]retrieval.SymbolCandidate, error) {
	curated, err := kb.Open(ctx, opts.Dir, kb.Curated, kb.Options{Command: "cra plan", Wait: kb.BatchWait})
	if err != nil {
		return nil, err
	}
	defer curated.Close()
	k := kb.NewKnowledgeBase(curated.DB)
	ids := g.FileIDs()
	var out []retrieval.SymbolCandidate
	for _, p := range paths {
		syms, err := k.GetSymbolsForFile(ctx, ids[p], "")
		if err != nil {
			return nil, err
		}
		out = append(out, retrieval.SymbolCandidates(syms)...)
	}
	return out, nil
}

// stageClients are the run's model clients, one per stage (a stage may
// have its own model: [models.overrides]), each logging its calls.
type stageClients struct {
	dir       string
	router    *llm.Router
	newClient func(llm.ModelConfig) (llm.Client, error)
	byStage   map[string]*llm.Logged
}

func (s *stageClients) get(stage string) (llm.Client, error) {
	if c := s.byStage[stage]; c != nil {
		return c, nil
	}
	cfg, err := s.router.Resolve(llm.StageRole(stage), stage)
	if err != nil {
		return nil, err
	}
	inner, err := s.newClient(cfg)
	if err != nil {
		return nil, err
	}
	c := llm.NewLogged(inner, cfg, func(ctx context.Context, calls []kb.LLMCall) error {
		return kb.WithWriter(ctx, s.dir, kb.Raw, kb.Options{Command: "cra plan", Wait: kb.BatchWait}, func(w kb.Writer) error {
			return w.Tx(ctx, func() error { return kb.AppendLLMCalls(w, calls) })
		})
	})
	s.byStage[stage] = c
	return c, nil
}

func (s *stageClients) close() error {
	var errs []error
	for _, c := range s.byStage {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// newTaskID is a fresh run id: the mode, the time and a random suffix.
func newTaskID(mode string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s-%s-%s", mode, time.Now().UTC().Format("20060102T150405"), hex.EncodeToString(b))
}
