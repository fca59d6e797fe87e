package ask

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// Options configure one ask.
type Options struct {
	Dir      string // the home
	Repo     string // an indexed repository
	Rev      string // the revision asked about: the one indexed ("" for whichever is)
	Question string
	Config   config.Config
	// GraphOptions say which files are parsed source (ingest knows).
	GraphOptions retrieval.GraphOptions
	// Knowledge is a curated store to read instead of the home's: the
	// eval's scratch knowledge base at a commit's parent. nil: the home's.
	Knowledge *kb.Store
	// Oracle is the known mode: no classify call is made (By ByOracle).
	Oracle *Classification
	// TaskPrefix prefixes the task id ("ask" when empty).
	TaskPrefix string
	// Raw writes the run's rows; nil: a lease of the home's raw store for
	// this ask.
	Raw *kb.Lease
	// NewClient builds a model client; nil means llm.New.
	NewClient func(llm.ModelConfig) (llm.Client, error)
	// PingTimeout bounds the preflight's ping of each model (0: llm's
	// default).
	PingTimeout time.Duration
	// SkipPreflight leaves out the raw store check and the models' ping
	// (an eval checks once, not per question).
	SkipPreflight bool
	Log           *slog.Logger
}

// Result is what an ask did, under one task id.
type Result struct {
	TaskID         string         `json:"task_id"`
	TaskRunID      int64          `json:"task_run_id"`
	Question       string         `json:"question"`
	Classification Classification `json:"classification"`
	// Retrieved is the initial retrieval, best first, before any model
	// choice.
	Retrieved  []Source        `json:"retrieved"`
	Answer     string          `json:"answer"`
	Cited      []Source        `json:"sources"` // what the final answer cites, as shown (Text empty)
	Passes     int             `json:"passes"`
	Stop       string          `json:"stop"`
	Unresolved []string        `json:"unresolved_gaps"`
	Gaps       []GapResolution `json:"gaps"`
	Budget     BudgetUsage     `json:"budget"`
}

// Session keys of an ask's session (archived to the raw store).
const (
	keyQuestion       = "ask_question"
	keyClassification = "ask_classification"
	keyRetrieval      = "ask_context"
	keyResult         = "ask_result"
)

// Stages are the stages an ask calls a model for.
var Stages = []string{schema.StageAskClassify, schema.StageAskAnswer}

// Run answers a question about an indexed repository: preflight (as cra
// plan's), classification, the mode's retrieval, then the CGRAG loop.
// Every model call, source and gap is logged under one task id with a
// task_runs row of mode ask, and the session is archived. A preflight
// failure is a *retrieval.PreflightError or an *llm.UnansweredError
// (nothing is written); a model failure returns the error with the
// Result so far (the run is recorded as failed).
func Run(ctx context.Context, opts Options) (*Result, error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	stages := Stages
	if opts.Oracle != nil {
		stages = []string{schema.StageAskAnswer}
	}
	ready, err := preflight(ctx, opts, stages)
	if err != nil {
		return nil, err
	}
	curated := opts.Knowledge
	if curated == nil {
		if curated, err = kb.Open(ctx, opts.Dir, kb.Curated, kb.Options{Command: "cra ask", Wait: kb.BatchWait}); err != nil {
			return nil, err
		}
		defer curated.Close()
	}
	g, err := retrieval.LoadKnowledgeGraph(ctx, curated.DB, ready.Repo.ID, opts.GraphOptions)
	if err != nil {
		return nil, err
	}
	raw := opts.Raw
	if raw == nil {
		raw = kb.NewLease(opts.Dir, kb.Raw, kb.Options{Command: "cra ask", Wait: kb.BatchWait}, kb.DefaultIdle)
		defer raw.Close()
	}
	prefix := opts.TaskPrefix
	if prefix == "" {
		prefix = kb.ModeAsk
	}
	res := &Result{TaskID: kb.NewTaskID(prefix), Question: opts.Question, Retrieved: []Source{}, Cited: []Source{},
		Unresolved: []string{}, Gaps: []GapResolution{}, Budget: BudgetUsage{Gaps: []int{}}}
	router := llm.NewRouter(opts.Config)
	answerModel, err := router.Resolve(llm.StageRole(schema.StageAskAnswer), schema.StageAskAnswer)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := raw.Write(ctx, func(w kb.Writer) (err error) {
		res.TaskRunID, err = kb.BeginTaskRun(ctx, w.Conn, kb.TaskRun{TaskID: res.TaskID, RepoPath: ready.Repo.Path, Mode: kb.ModeAsk,
			ExecuteModel: answerModel.Model, ContextWindow: opts.Config.Models.ContextWindow,
			ReservedTokens: opts.Config.Budget.ReservedTokens, Stages: stages, Started: start.UTC()})
		return err
	}); err != nil {
		return nil, err
	}
	record := func(ctx context.Context, ds []kb.Decision, calls []kb.LLMCall) error {
		if len(ds) == 0 && len(calls) == 0 {
			return nil
		}
		return raw.Write(ctx, func(w kb.Writer) error {
			return w.Tx(ctx, func() error {
				return errors.Join(kb.AppendDecisions(w, ds), kb.AppendLLMCalls(w, calls))
			})
		})
	}
	clients := llm.NewStageClients(router, opts.NewClient, opts.Config.Budget.SafetyMargin, func(ctx context.Context, calls []kb.LLMCall) error {
		return record(ctx, nil, calls)
	})
	sess, err := kb.OpenSession(opts.Dir, res.TaskID)
	if err != nil {
		return nil, err
	}
	find := &Retriever{KB: kb.NewKnowledgeBase(curated.DB), Repo: *ready.Repo, Graph: g, Config: opts.Config.Ask}
	runErr := res.ask(ctx, opts, find, clients, sess, record)
	closeErr := clients.Close()
	bg := context.WithoutCancel(ctx)
	end := kb.TaskRunEnd{Success: runErr == nil && res.Answer != "", TotalTokens: clients.Tokens(), TotalLatency: time.Since(start)}
	finishErr := raw.Write(bg, func(w kb.Writer) error {
		if err := kb.FinishTaskRun(bg, w.Conn, res.TaskID, end); err != nil {
			return err
		}
		return sess.Archive(bg, w) // the ask is over, answered or not: its session goes to the raw store
	})
	return res, errors.Join(runErr, closeErr, finishErr)
}

// preflight checks what cra plan's preflight checks, over the eval's
// knowledge base when it gives one, and pings the stages' models.
func preflight(ctx context.Context, opts Options, stages []string) (*retrieval.Readiness, error) {
	var ready *retrieval.Readiness
	var err error
	if opts.Knowledge != nil {
		ready, err = retrieval.PreflightWith(ctx, opts.Knowledge, "", opts.Config, opts.Repo, llm.RoleReasoning)
	} else {
		ready, err = retrieval.Preflight(ctx, opts.Dir, opts.Config, opts.Repo, llm.RoleReasoning)
	}
	if err != nil {
		return nil, err
	}
	if opts.Knowledge == nil {
		if err := retrieval.CheckRevision(ready.Repo, opts.Rev); err != nil {
			return nil, err
		}
	}
	if opts.SkipPreflight {
		return ready, nil
	}
	if !ready.Enriched {
		opts.Log.Info("no enrichment for this repository: conceptual questions match docstrings and names only (run `cra enrich` to add descriptions)")
	}
	return ready, llm.CheckStages(ctx, opts.Config, stages, llm.PingOptions{Timeout: opts.PingTimeout, NewClient: opts.NewClient})
}

// ask classifies, retrieves and runs the loop, filling res as it goes.
func (res *Result) ask(ctx context.Context, opts Options, find finder, clients *llm.StageClients, sess *kb.Session,
	record func(context.Context, []kb.Decision, []kb.LLMCall) error) error {
	if err := sess.Put(keyQuestion, opts.Question); err != nil {
		return err
	}
	if opts.Oracle != nil {
		res.Classification = *opts.Oracle
		res.Classification.By = ByOracle
	} else {
		c, err := clients.Get(schema.StageAskClassify)
		if err != nil {
			return err
		}
		if res.Classification, err = classify(ctx, c, res.TaskID, opts.Question); err != nil {
			return err
		}
	}
	cls := res.Classification
	reason := fmt.Sprintf("%s by %s: %s", cls.Mode, cls.By, cls.Reasoning)
	if cls.Scope != "" {
		reason += " (scope " + cls.Scope + ")"
	}
	// Not a file's decision: file_id 0, the mode in tier.
	if err := record(ctx, []kb.Decision{{TaskID: res.TaskID, Stage: schema.StageAskClassify, Tier: string(cls.Mode), Included: true,
		Reason: reason, At: time.Now().UTC()}}, nil); err != nil {
		return err
	}
	if err := sess.Put(keyClassification, cls); err != nil {
		return err
	}
	initial, err := find.Retrieve(ctx, cls, opts.Question)
	if err != nil {
		return fmt.Errorf("retrieve for %s: %w", cls.Mode, err)
	}
	res.Retrieved = append(res.Retrieved, stripText(initial.Sources)...)
	if err := sess.Put(keyRetrieval, initial); err != nil {
		return err
	}
	answer, err := clients.Get(schema.StageAskAnswer)
	if err != nil {
		return err
	}
	l := &loop{cfg: opts.Config.Ask, find: find, client: answer, taskID: res.TaskID, question: opts.Question, mode: cls.Mode, record: record, log: opts.Log}
	o, loopErr := l.run(ctx, initial)
	res.Passes, res.Stop, res.Budget = o.passes, o.stop, o.budget
	res.Unresolved, res.Gaps = append(res.Unresolved, o.unresolved...), append(res.Gaps, o.gaps...)
	if res.Budget.Gaps == nil {
		res.Budget.Gaps = []int{}
	}
	if loopErr == nil {
		res.Answer, res.Cited = o.answer.Answer, append(res.Cited, cited(o.answer, o.shown)...)
	}
	return errors.Join(loopErr, sess.Put(keyResult, res))
}

// cited maps an answer's citations to the sources it was shown: a
// citation inside a shown source's lines is that source; one that
// matches nothing shown is kept as cited, with Why saying so.
func cited(a prompt.AskAnswer, shown []Source) []Source {
	var out []Source
	have := map[string]bool{}
	for _, c := range a.Cited {
		s := Source{Path: c.Path, Start: c.Start, End: c.End, Symbol: c.Symbol, Why: "cited, not in the context shown"}
		for _, sh := range shown {
			if sh.Path == c.Path && (c.Start == 0 || sh.Start == 0 || c.Start <= sh.End && sh.Start <= c.End) {
				s = sh
				s.Text = ""
				break
			}
		}
		if !have[s.Cite()+s.Symbol] {
			have[s.Cite()+s.Symbol] = true
			out = append(out, s)
		}
	}
	return out
}

func stripText(srcs []Source) []Source {
	out := make([]Source, len(srcs))
	for i, s := range srcs {
		s.Text = ""
		out[i] = s
	}
	return out
}
