package retrieval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// Pipeline is retrieval for one task over an indexed repository: task
// analysis, tiered expansion, scope, precision and assembly, each stage's
// output in the task's session and each decision recorded; re-entered with
// a refinement request when an attempt lacked context.
type Pipeline struct {
	KB     *kb.KnowledgeBase // the curated store, open for the run
	Repo   kb.Repo
	Graph  *KnowledgeGraph
	Limits Limits
	Budget llm.Budget
	// MaxRefinements bounds Reenter ([orchestrator] max_refinement_loops).
	MaxRefinements int
	// Client is the model client of a stage, logging its calls.
	Client func(stage string) (llm.Client, error)
	// Record appends decisions and model-less call rows (assembly,
	// refinement_merge) to the raw store.
	Record  func(ctx context.Context, decisions []kb.Decision, calls []kb.LLMCall) error
	Session *kb.Session
	// Execute is the stage the package is for (plan, implement) and Render
	// its prompt, which the package must fit.
	Execute string
	Render  func(prompt.Package) prompt.Prompt
	// Retry is the previous attempt's failure an implement prompt carries:
	// the first thing assembly cuts.
	Retry string
	Log   *slog.Logger
}

// Context is what retrieval found for a task, as the session holds it.
type Context struct {
	Task       string                  `json:"task"`
	Candidates []schema.ScopeCandidate `json:"candidates"`
	Kept       []schema.ScopeCandidate `json:"kept"`
	// Named are the symbol names the task names: the precision stage's
	// first guess at primary symbols.
	Named   []string          `json:"named"`
	Symbols map[string]string `json:"symbols"` // "path:Qualified.name" → tier
	Package prompt.Package    `json:"package"`
	// Refinements counts the re-entries so far.
	Refinements int `json:"refinements"`

	symbols []SymbolCandidate // of the kept files, read by precision
}

// name adds a symbol name the task names.
func (c *Context) name(s string) {
	if s != "" && !slices.Contains(c.Named, s) {
		c.Named = append(c.Named, s)
	}
}

// KeptPaths are the kept files' paths, in expansion order.
func (c *Context) KeptPaths() []string {
	out := make([]string, len(c.Kept))
	for i, k := range c.Kept {
		out[i] = k.Path
	}
	return out
}

// ErrRefinementLimit: a run asked for more context more often than
// [orchestrator] max_refinement_loops allows.
var ErrRefinementLimit = errors.New("refinement limit reached")

// Session keys of the retrieval stages: where each stage's output waits
// for the next, and for a resumed or re-entered run.
const (
	KeyTaskQuery         = "task_query"
	KeyStageProgress     = "stage_progress"
	KeyFinalContext      = "final_context"
	KeyRefinementRequest = "refinement_request"
	KeyStageOutput       = "stage_output_" // + the stage
)

// Stages is the order of retrieval's stages.
var Stages = []string{schema.StageTaskAnalysis, schema.StageScope, schema.StagePrecision}

// Run retrieves the context of task: the model's task analysis merged
// with the task's mentions (the mentions alone when the analysis stays
// unusable), tiered expansion with the caps recorded as decisions, the
// model's scope, the deterministic guess and the model's tiers for the
// symbols of the kept files, and the assembled package. An unusable scope
// answer is an *UnusableAnswerError; a package whose primary symbols
// alone exceed the budget wraps llm.ErrOverBudget.
func (p *Pipeline) Run(ctx context.Context, taskID, task string) (*Context, error) {
	if err := p.Session.Put(KeyTaskQuery, map[string]string{"task": task, "repo": p.Repo.Path}); err != nil {
		return nil, err
	}
	c := &Context{Task: task, Symbols: map[string]string{}}
	client, err := p.Client(schema.StageTaskAnalysis)
	if err != nil {
		return nil, err
	}
	analysis, seeds, err := AnalyzeTask(ctx, client, taskID, task, p.Graph)
	var unusable *UnusableAnswerError
	switch {
	case errors.As(err, &unusable):
		p.Log.Warn("task analysis unusable: seeding from the task's own words", "error", err)
		seeds = Mentions(task, p.Graph)
	case err != nil:
		return nil, err
	}
	for _, s := range seeds {
		c.name(s.Symbol)
	}
	for _, s := range analysis.Symbols {
		c.name(s) // Store.get, which names no file alone, names a method
	}
	if err := p.done(schema.StageTaskAnalysis, seeds); err != nil {
		return nil, err
	}

	exp := ExpandAll(p.Graph, seeds, task, p.Limits)
	c.Candidates = exp.Candidates
	if client, err = p.Client(schema.StageScope); err != nil {
		return nil, err
	}
	scope, err := Scope(ctx, client, taskID, task, c.Candidates, p.Graph.FileIDs())
	if err != nil {
		return nil, err
	}
	c.Kept = scope.Kept
	if err := p.Record(ctx, append(scope.Decisions, CapDecisions(taskID, exp.Capped, p.Limits, p.Graph.FileIDs())...), nil); err != nil {
		return nil, err
	}
	if err := p.done(schema.StageScope, map[string]any{"candidates": c.Candidates, "capped": exp.Capped, "kept": c.Kept}); err != nil {
		return nil, err
	}

	if err := p.precision(ctx, taskID, c, c.KeptPaths()); err != nil {
		return nil, err
	}
	return c, p.assemble(ctx, taskID, c)
}

// Reenter is retrieval's re-entry: it reads the task and the refinement
// request the caller wrote to the session, adds the files the request's
// evidence names (each a scope decision, kept: the evidence is concrete),
// tiers the symbols of the new files, assembles the package again and logs
// the merge (call_type refinement_merge). More re-entries
// than MaxRefinements is ErrRefinementLimit.
func (p *Pipeline) Reenter(ctx context.Context, taskID string) (*Context, error) {
	c := &Context{}
	var req schema.RefinementRequest
	for key, v := range map[string]any{KeyFinalContext: c, KeyRefinementRequest: &req} {
		if ok, err := p.Session.Get(key, v); err != nil {
			return nil, err
		} else if !ok {
			return nil, fmt.Errorf("refinement of %s: the session has no %s", taskID, key)
		}
	}
	if c.Refinements >= p.MaxRefinements {
		return nil, fmt.Errorf("%w: %d of %d ([orchestrator] max_refinement_loops)", ErrRefinementLimit, c.Refinements, p.MaxRefinements)
	}
	added, err := Refine(p.Graph, c.Kept, req)
	if err != nil {
		return nil, err
	}
	c.Refinements++
	now := time.Now().UTC()
	var decisions []kb.Decision
	var merged []string
	for _, a := range added {
		decisions = append(decisions, kb.Decision{TaskID: taskID, Stage: schema.StageScope, FileID: p.Graph.FileIDs()[a.Path],
			Tier: strconv.Itoa(a.Tier), Rank: a.Rank, Included: true, Reason: a.Reason, At: now})
		merged = append(merged, a.Path+" ("+a.Reason+")")
	}
	for _, s := range req.MissingSymbols {
		c.name(s)
	}
	reqJSON, _ := json.Marshal(req)
	response := "nothing new: every file the request names is in the context already"
	if len(merged) > 0 {
		response = "added:\n" + strings.Join(merged, "\n")
	}
	merge := kb.LLMCall{TaskID: taskID, CallType: schema.CallRefinementMerge, StageName: schema.StageScope, Model: "none", Provider: "cra",
		Prompt:   fmt.Sprintf("refinement %d of %d for: %s\nrequest: %s", c.Refinements, p.MaxRefinements, c.Task, reqJSON),
		Response: &response, At: now}
	if err := p.Record(ctx, decisions, []kb.LLMCall{merge}); err != nil {
		return nil, err
	}
	var paths []string
	for _, a := range added {
		paths = append(paths, a.Path)
	}
	c.Kept = append(c.Kept, added...)
	if err := p.done(schema.StageScope, map[string]any{"candidates": c.Candidates, "kept": c.Kept, "refinement": c.Refinements}); err != nil {
		return nil, err
	}
	if err := p.precision(ctx, taskID, c, paths); err != nil {
		return nil, err
	}
	return c, p.assemble(ctx, taskID, c)
}

// precision tiers the symbols of paths (a kept file's symbols once): the
// deterministic guess from the named symbols and the references between
// the kept files' symbols, then the model's tiers (the guess when its
// answer stays unusable).
func (p *Pipeline) precision(ctx context.Context, taskID string, c *Context, paths []string) error {
	var all, fresh []SymbolCandidate
	for _, path := range c.KeptPaths() {
		syms, err := p.KB.GetSymbolsForFile(ctx, p.Graph.FileIDs()[path], "")
		if err != nil {
			return err
		}
		cands := SymbolCandidates(syms)
		all = append(all, cands...)
		if slices.Contains(paths, path) {
			fresh = append(fresh, cands...)
		}
	}
	if len(fresh) > 0 {
		ids := make([]int64, len(all))
		for i, s := range all {
			ids[i] = s.SymbolID
		}
		refs, err := p.KB.GetReferencesAmong(ctx, ids)
		if err != nil {
			return err
		}
		named := map[string]bool{}
		for _, n := range c.Named {
			named[n] = true
		}
		guess := GuessTiers(all, named, refs)
		client, err := p.Client(schema.StagePrecision)
		if err != nil {
			return err
		}
		res, err := Precision(ctx, client, taskID, c.Task, fresh, guess)
		if err != nil {
			return err
		}
		if res.Guessed {
			p.Log.Warn("precision answer unusable: using the deterministic tiers")
		}
		for k, t := range res.Tiers {
			c.Symbols[k] = t
		}
		if err := p.Record(ctx, res.Decisions, nil); err != nil {
			return err
		}
	}
	c.symbols = all
	return p.done(schema.StagePrecision, c.Symbols)
}

// assemble fits the package of the kept files into the budget, records
// what was cut (call_type assembly) and writes final_context.
func (p *Pipeline) assemble(ctx context.Context, taskID string, c *Context) error {
	var facts []prompt.FileFacts
	for _, path := range c.KeptPaths() {
		ff, err := LoadFileFacts(ctx, p.KB, p.Repo, path, c.symbols, c.Symbols, p.Limits.CoChangeMin)
		if err != nil {
			return err
		}
		facts = append(facts, ff)
	}
	pkg, asmErr := Assemble(facts, p.Retry, p.Budget, p.Render)
	c.Package = pkg
	if len(pkg.Cut) > 0 || asmErr != nil {
		cut := strings.Join(pkg.Cut, "\n")
		row := kb.LLMCall{TaskID: taskID, CallType: schema.CallAssembly, StageName: p.Execute, Model: "none", Provider: "cra",
			Prompt: fmt.Sprintf("fit the context package to %d tokens", p.Budget.ContextLimit()), Response: &cut, At: time.Now().UTC()}
		if asmErr != nil {
			row.Error = asmErr.Error()
		}
		if err := p.Record(ctx, nil, []kb.LLMCall{row}); err != nil {
			return errors.Join(asmErr, err)
		}
	}
	return errors.Join(asmErr, p.Session.Put(KeyFinalContext, c))
}

// done records a finished stage in the session: its output and the
// progress so far.
func (p *Pipeline) done(stage string, output any) error {
	i := slices.Index(Stages, stage)
	return errors.Join(p.Session.Put(KeyStageOutput+stage, output),
		p.Session.Put(KeyStageProgress, map[string][]string{"completed": Stages[:i+1], "remaining": Stages[i+1:]}))
}
