package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/cra-dev/cra/agent/execute"
	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/pathrule"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// Options configure one cra solve run.
type Options struct {
	Home string
	Repo string // an indexed repository
	Rev  string // the revision to work from ("": HEAD)
	Task string
	// Config is the loaded configuration; its [testing] section (with the
	// repository's overrides) and [orchestrator] bounds apply.
	Config config.Config
	// Plan runs one implement pass following it, without the orchestrator
	// (--plan); MetaPlan skips the meta-plan pass (--meta-plan).
	Plan     *schema.PlanArtifact
	MetaPlan *schema.MetaPlan
	// Resume continues the run of this task id from its session.
	Resume string
	// TaskID names a new run ("": a fresh id); whatever an earlier run of
	// that id left in the repository (worktree, branch) is discarded.
	TaskID string
	// Apply brings the final diff into the user's working tree.
	Apply bool
	// Raw is the raw store's writer the run writes through (cra eval's,
	// shared by its runs); nil: the run leases the home's raw store itself.
	Raw *kb.Lease
	// Knowledge is the open curated store that holds the repository at
	// Rev (cra eval's knowledge base of a past revision); nil: Home's.
	Knowledge *kb.Store
	// Judge replaces the test command as a step's verdict. Only cra eval
	// sets it: to run the tests within its own timeout, or, for a task it
	// judges without tests (no test command, tests that do not end at the
	// parent), to pass a step whose edits applied, the verdict saying so
	// in validation_results. cra solve always runs the tests.
	Judge        func(ctx context.Context, dir string) (Report, error)
	GraphOptions retrieval.GraphOptions
	NewClient    func(llm.ModelConfig) (llm.Client, error)
	// Started, when set, is told the run's task id as soon as the run can
	// be resumed by it (its session written), before any model call:
	// resumed says it continues a killed run.
	Started func(taskID string, resumed bool)
	// ModelsChecked: the caller made sure the models answer (cra eval, once
	// for all its runs), so the run does not ping them again.
	ModelsChecked bool
	// PingTimeout bounds the preflight's ping of each model (0: llm's
	// default).
	PingTimeout time.Duration
	Log         *slog.Logger
}

// Run statuses.
const (
	StatusComplete = "complete"
	StatusPartial  = "partial"
	StatusFailed   = "failed"
)

// StepOutcome is what became of one step.
type StepOutcome struct {
	Part         string   `json:"part"`
	Step         string   `json:"step"`
	Description  string   `json:"description"`
	Passed       bool     `json:"passed"`
	Attempts     int      `json:"attempts"`
	FailingTests []string `json:"failing_tests,omitempty"`
	Files        []string `json:"files,omitempty"`
	Error        string   `json:"error,omitempty"`
}

// Outcome is a solve run's result.
type Outcome struct {
	TaskID    string        `json:"task_id"`
	Status    string        `json:"status"`
	Branch    string        `json:"branch"`
	Parts     int           `json:"parts"`
	PartsDone int           `json:"parts_done"`
	Steps     []StepOutcome `json:"steps"`
	Files     []string      `json:"files"`
	Diff      string        `json:"diff"`
	Applied   bool          `json:"applied"`
	Problems  []string      `json:"problems,omitempty"` // passes that failed, and why
}

// Session keys of the orchestrator: a pass's answer is kept under its
// stage's name (+ the part, for a part's passes), so a resumed run skips
// the passes done and cra eval reads the plans a run made.
const (
	keyTaskQuery    = "task_query"
	KeyMetaPlan     = schema.StageMetaPlan
	keyProgress     = "orchestrator_progress"
	keyCumulative   = "cumulative_diff"
	KeyPartPlan     = schema.StagePartPlan + ":"   // + part id
	keyStepResult   = "step_result:"               // + part:step
	keyAdjustment   = schema.StageAdjustment + ":" // + part:after_step
	keyAttempt      = "attempt:"                   // + the attempt's task id
	maxPriorChanges = 12 << 10                     // bytes of the cumulative diff a prompt shows
	maxTestTail     = 4 << 10                      // bytes of test output a prompt shows
)

// query is what a resumed run needs to start again.
type query struct {
	Task     string               `json:"task"`
	Repo     string               `json:"repo"`
	Base     string               `json:"base"`
	Plan     *schema.PlanArtifact `json:"plan,omitempty"`
	MetaPlan *schema.MetaPlan     `json:"meta_plan_given,omitempty"`
}

// progress is the run's position, written after every pass: the passes
// done (their task ids, in order) and the commit the worktree stands at.
type progress struct {
	Done []string `json:"done"`
	Head string   `json:"head"`
}

// ErrNothingToResume: the task id names no live session.
var ErrNothingToResume = errors.New("no unfinished run with that task id (a finished run's session is archived: see raw.session_archives)")

// Solve runs cra solve: in a worktree of the repository, the meta plan
// (or the given one), for each part in dependency order its part plan,
// for each step an implement pass tested by the repository's test command
// (mandatory), a coder retry with the failure (and a retrieval re-entry
// when the failure names what the context lacked), then an adjustment
// pass whose steps replace the remaining ones. Every pass is a pipeline
// invocation with its own task_runs row and hierarchical task id, linked
// to the run by orchestrator_passes; each successful step is a commit on
// the run's branch. A killed run resumes from its session (Options.Resume)
// with the rows a clean run writes.
func Solve(ctx context.Context, opts Options) (*Outcome, error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	r, err := start(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer r.close()
	runErr := r.run(ctx)
	if runErr != nil && (ctx.Err() != nil || !isPassFailure(runErr)) {
		// Interrupted or broken: the session and worktree stay for --resume.
		return r.out, fmt.Errorf("%w (resume with: cra solve --resume %s)", runErr, r.out.TaskID)
	}
	return r.out, r.finish(context.WithoutCancel(ctx))
}

// runner is one run in progress.
type runner struct {
	opts    Options
	testing config.Testing
	box     Box // where the tests run ([testing] sandbox)
	q       query
	out     *Outcome
	curated *kb.Store
	graph   *retrieval.KnowledgeGraph
	repo    kb.Repo
	budget  llm.Budget
	clients *llm.StageClients
	sess    *kb.Session
	lock    *kb.InputLock
	wt      *Worktree
	runID   int64 // orchestrator_runs.id; 0 with --plan
	prog    progress
	diff    string
	held    passRows // the current pass's rows, written when it ends
	raw     *kb.Lease
	ownRaw  bool
	// ownCurated: the run opened the curated store (it was not given).
	ownCurated bool
}

// start opens or resumes a run: preflight, the stores, the worktree, the
// session, the run's rows.
func start(ctx context.Context, opts Options) (*runner, error) {
	r := &runner{opts: opts}
	taskID := opts.Resume
	switch {
	case taskID == "" && opts.TaskID != "":
		taskID = opts.TaskID
		DiscardWorktree(ctx, opts.Home, opts.Repo, taskID)
	case taskID == "":
		taskID = kb.NewTaskID("solve")
	}
	r.out = &Outcome{TaskID: taskID, Branch: BranchFor(taskID)}
	if opts.Resume != "" {
		// The run's repository is the one its session names.
		if !slices.Contains(sessionIDs(opts.Home), taskID) {
			return nil, &retrieval.PreflightError{Problem: "cra solve --resume " + taskID, Fix: ErrNothingToResume.Error()}
		}
		s, err := kb.OpenSession(opts.Home, taskID)
		if err != nil {
			return nil, err
		}
		if ok, err := s.Get(keyTaskQuery, &r.q); err != nil || !ok {
			return nil, errors.Join(err, fmt.Errorf("the session of %s has no %s", taskID, keyTaskQuery))
		}
		opts.Repo = r.q.Repo
		r.opts.Repo = r.q.Repo
	}
	rawDir := opts.Home
	if opts.Raw != nil {
		rawDir = "" // the caller's lease writes it
	}
	var ready *retrieval.Readiness
	var err error
	if opts.Knowledge != nil {
		ready, err = retrieval.PreflightWith(ctx, opts.Knowledge, rawDir, opts.Config, opts.Repo, llm.RoleReasoning, llm.RoleCoding)
	} else {
		ready, err = retrieval.Preflight(ctx, opts.Home, opts.Config, opts.Repo, llm.RoleReasoning, llm.RoleCoding)
	}
	if err != nil {
		return nil, err
	}
	r.repo = *ready.Repo
	// A resumed run goes on from its own base, whatever is indexed now.
	if opts.Resume == "" {
		if err := retrieval.CheckRevision(&r.repo, opts.Rev); err != nil {
			return nil, err
		}
	}
	if opts.Raw == nil { // cra eval sweeps once for all its runs
		if removed := SweepStale(ctx, opts.Home, r.repo.Path); len(removed) > 0 {
			opts.Log.Info("removed what killed runs left", "repo", r.repo.Path, "removed", removed)
		}
	}
	r.testing = opts.Config.Testing.For(r.repo.Path)
	if strings.TrimSpace(r.testing.TestCommand) == "" && opts.Judge == nil {
		return nil, &retrieval.PreflightError{Problem: "no test command for " + r.repo.Path, Fix: ErrNoTestCommand.Error()}
	}
	if r.box, err = NewBox(r.testing, os.Environ(), opts.Home); err != nil {
		return nil, err
	}
	if r.budget, err = llm.NewBudget(opts.Config); err != nil {
		return nil, err
	}
	if !opts.ModelsChecked {
		plan, meta := opts.Plan != nil, opts.MetaPlan != nil
		if opts.Resume != "" {
			plan, meta = r.q.Plan != nil, r.q.MetaPlan != nil
		}
		// Before any row, session or worktree: a model that does not
		// answer would fail every pass after its retries.
		if err := llm.CheckStages(ctx, opts.Config, Stages(plan, meta),
			llm.PingOptions{Timeout: opts.PingTimeout, NewClient: opts.NewClient}); err != nil {
			return nil, err
		}
	}
	if r.lock, err = kb.LockInput(ctx, opts.Home, "solve", taskID, "cra solve", 0); err != nil {
		return nil, err
	}
	if r.raw = opts.Raw; r.raw == nil {
		r.raw = kb.NewLease(opts.Home, kb.Raw, kb.Options{Command: "cra solve", Wait: kb.BatchWait}, kb.DefaultIdle)
		r.ownRaw = true
	}
	ok := false
	defer func() {
		if !ok {
			r.close()
		}
	}()
	if opts.Resume != "" {
		if err := r.resume(ctx); err != nil {
			return nil, err
		}
	} else if err := r.begin(ctx); err != nil {
		return nil, err
	}
	if opts.Started != nil {
		opts.Started(taskID, opts.Resume != "")
	}
	if r.curated = opts.Knowledge; r.curated == nil {
		if r.curated, err = kb.Open(ctx, opts.Home, kb.Curated, kb.Options{Command: "cra solve", Wait: kb.BatchWait}); err != nil {
			return nil, err
		}
		r.ownCurated = true
	}
	if r.graph, err = retrieval.LoadKnowledgeGraph(ctx, r.curated.DB, r.repo.ID, opts.GraphOptions); err != nil {
		return nil, err
	}
	r.clients = llm.NewStageClients(llm.NewRouter(opts.Config), opts.NewClient, opts.Config.Budget.SafetyMargin,
		func(ctx context.Context, calls []kb.LLMCall) error { return r.held.record(ctx, nil, calls) })
	r.held.mask = r.clients.Mask
	ok = true
	return r, nil
}

// begin starts a new run: its worktree, session and rows.
func (r *runner) begin(ctx context.Context) error {
	rev := r.opts.Rev
	if rev == "" {
		rev = "HEAD"
	}
	var err error
	if r.wt, err = AddWorktree(ctx, r.opts.Home, r.repo.Path, rev, r.out.TaskID); err != nil {
		return &retrieval.PreflightError{Problem: err.Error(), Fix: "name a commit, branch or tag of " + r.repo.Path}
	}
	if r.sess, err = kb.OpenSession(r.opts.Home, r.out.TaskID); err != nil {
		return err
	}
	r.q = query{Task: r.opts.Task, Repo: r.repo.Path, Base: r.wt.Base, Plan: r.opts.Plan, MetaPlan: r.opts.MetaPlan}
	r.prog = progress{Done: []string{}, Head: r.wt.Base}
	if err := r.sess.PutAll(map[string]any{keyTaskQuery: r.q, keyProgress: r.prog}); err != nil {
		return err
	}
	return r.rows(ctx)
}

// rows writes the run's own rows unless they are there: its task_runs row
// and, orchestrated, its orchestrator_runs row.
func (r *runner) rows(ctx context.Context) error {
	mode := kb.ModeSolve
	if r.q.Plan != nil {
		mode = schema.StageImplement
	}
	return r.write(ctx, func(w kb.Writer) error {
		logged, err := kb.TaskRunLogged(ctx, w.Conn, r.out.TaskID)
		if err != nil {
			return err
		}
		if !logged {
			coder, _ := llm.NewRouter(r.opts.Config).Resolve(llm.RoleCoding, schema.StageImplement)
			if _, err := kb.BeginTaskRun(ctx, w.Conn, kb.TaskRun{TaskID: r.out.TaskID, RepoPath: r.repo.Path, Mode: mode,
				ExecuteModel: coder.Model, ContextWindow: r.opts.Config.Models.ContextWindow, ReservedTokens: r.opts.Config.Budget.ReservedTokens,
				Stages: []string{schema.StageMetaPlan, schema.StagePartPlan, schema.StageImplement, schema.StageAdjustment}, Started: time.Now().UTC()}); err != nil {
				return err
			}
		}
		if r.q.Plan != nil {
			return nil // --plan: no orchestrator rows
		}
		r.runID, err = kb.BeginOrchestratorRun(ctx, w.Conn, kb.OrchestratorRun{TaskID: r.out.TaskID, RepoPath: r.repo.Path,
			Task: r.q.Task, Started: time.Now().UTC()})
		return err
	})
}

// resume reopens a killed run: its session, its worktree at the last
// finished pass's commit, and its rows without those of the pass it was in.
func (r *runner) resume(ctx context.Context) error {
	var err error
	if r.sess, err = kb.OpenSession(r.opts.Home, r.out.TaskID); err != nil {
		return err
	}
	for key, v := range map[string]any{keyTaskQuery: &r.q, keyProgress: &r.prog} {
		if ok, err := r.sess.Get(key, v); err != nil || !ok {
			return errors.Join(err, fmt.Errorf("the session of %s has no %s", r.out.TaskID, key))
		}
	}
	if _, err := r.sess.Get(keyCumulative, &r.diff); err != nil {
		return err
	}
	r.opts.Task, r.opts.Plan, r.opts.MetaPlan = r.q.Task, r.q.Plan, r.q.MetaPlan
	if r.wt, err = OpenWorktree(ctx, r.opts.Home, r.repo.Path, r.q.Base, r.out.TaskID); err != nil {
		return err
	}
	if _, err := git(ctx, r.wt.Dir, "reset", "--quiet", "--hard", r.prog.Head); err != nil {
		return err
	}
	if err := r.write(ctx, func(w kb.Writer) error { return kb.ForgetUnfinishedPasses(ctx, w.Conn, r.out.TaskID, r.prog.Done) }); err != nil {
		return err
	}
	return r.rows(ctx)
}

// run is the orchestrator's loop; a pass failure it records and goes on
// from, anything else it returns.
func (r *runner) run(ctx context.Context) error {
	meta, err := r.metaPlan(ctx)
	if err != nil {
		return err
	}
	r.out.Parts = len(meta.Parts)
	for _, part := range partOrder(meta.Parts) {
		steps, err := r.partPlan(ctx, meta, part)
		if isPassFailure(err) {
			r.problem("part %s: no usable part plan: %v", part.ID, err)
			continue
		}
		if err != nil {
			return err
		}
		allPassed, executed := true, 0
		var done []schema.PlanStep
		for len(steps) > 0 && executed < r.opts.Config.Orchestrator.MaxStepsPerPart {
			step := steps[0]
			steps = steps[1:]
			executed++
			res, err := r.step(ctx, part, steps, step)
			if err != nil {
				return err
			}
			r.out.Steps = append(r.out.Steps, res)
			allPassed = allPassed && res.Passed
			done = append(done, step)
			if r.q.Plan != nil {
				continue // --plan: one pass, no adjustment
			}
			if steps, err = r.adjust(ctx, part, done, steps, res); err != nil {
				return err
			}
		}
		if len(steps) > 0 {
			allPassed = false
			r.problem("part %s: %d steps left past [orchestrator] max_steps_per_part = %d", part.ID, len(steps), r.opts.Config.Orchestrator.MaxStepsPerPart)
		}
		if allPassed && executed > 0 {
			r.out.PartsDone++
		}
		if err := r.updateRun(ctx, "running"); err != nil {
			return err
		}
	}
	return nil
}

// metaPlan is the given plan, the session's, or the meta-plan pass's.
func (r *runner) metaPlan(ctx context.Context) (schema.MetaPlan, error) {
	switch {
	case r.q.Plan != nil:
		// --plan: one part of one step, following the plan.
		p := r.q.Plan
		return schema.MetaPlan{TaskSummary: p.TaskSummary, Parts: []schema.MetaPart{{ID: "plan", Description: p.TaskSummary,
			AffectedFiles: p.ExecutionOrder}}}, nil
	case r.q.MetaPlan != nil:
		return *r.q.MetaPlan, nil
	}
	var meta schema.MetaPlan
	err := r.pass(ctx, passSpec{key: KeyMetaPlan, taskID: r.out.TaskID + ":" + schema.StageMetaPlan, passType: schema.PassMetaPlan, task: r.q.Task}, &meta,
		func(ctx context.Context, p *passRun) error {
			in := prompt.PlanInput{Task: r.q.Task}
			pkg, err := p.retrieve(ctx, r.q.Task, func(pkg prompt.Package) prompt.Prompt {
				in.Files = pkg.Files
				return prompt.PlanPrompt(prompt.PlanMeta, in)
			})
			if err != nil {
				return err
			}
			in.Files = pkg.Files
			meta, err = askPass(ctx, p, schema.StageMetaPlan, prompt.PlanPrompt(prompt.PlanMeta, in), func(text string) (schema.MetaPlan, error) {
				m, err := prompt.ParseMetaPlan(text)
				if err == nil && len(m.Parts) > r.opts.Config.Orchestrator.MaxParts {
					err = fmt.Errorf("%d parts, at most %d", len(m.Parts), r.opts.Config.Orchestrator.MaxParts)
				}
				return m, err
			})
			return err
		})
	if isPassFailure(err) {
		r.problem("no usable meta plan: %v", err)
	}
	return meta, err
}

// partPlan is the steps of a part: the session's, or the part-plan pass's.
func (r *runner) partPlan(ctx context.Context, meta schema.MetaPlan, part schema.MetaPart) ([]schema.PlanStep, error) {
	if r.q.Plan != nil {
		var files []string
		for _, f := range r.q.Plan.AffectedFiles {
			files = append(files, f.Path)
		}
		return []schema.PlanStep{{ID: "s1", Description: r.q.Task, TargetFiles: files}}, nil
	}
	var pp schema.PartPlan
	task := r.q.Task
	err := r.pass(ctx, passSpec{key: KeyPartPlan + part.ID, taskID: r.out.TaskID + ":" + schema.StagePartPlan + ":" + part.ID, passType: schema.PassPartPlan,
		partID: part.ID, task: part.Description + mentionFiles(part.AffectedFiles, nil)}, &pp,
		func(ctx context.Context, p *passRun) error {
			in := prompt.PlanInput{Task: task, Part: &part, PriorChanges: bounded(r.diff, maxPriorChanges)}
			pkg, err := p.retrieve(ctx, p.spec.task, func(pkg prompt.Package) prompt.Prompt {
				in.Files = pkg.Files
				return prompt.PlanPrompt(prompt.PlanPart, in)
			})
			if err != nil {
				return err
			}
			in.Files = pkg.Files
			pp, err = askPass(ctx, p, schema.StagePartPlan, prompt.PlanPrompt(prompt.PlanPart, in), func(text string) (schema.PartPlan, error) {
				pp, err := prompt.ParsePartPlan(text)
				if err == nil && len(pp.Steps) > r.opts.Config.Orchestrator.MaxStepsPerPart {
					err = fmt.Errorf("%d steps, at most %d", len(pp.Steps), r.opts.Config.Orchestrator.MaxStepsPerPart)
				}
				return pp, err
			})
			return err
		})
	return pp.Steps, err
}

// attemptResult is one implement attempt as the session keeps it.
type attemptResult struct {
	Passed       bool                      `json:"passed"`
	Failure      string                    `json:"failure"` // for the retry's prompt
	FailingTests []string                  `json:"failing_tests"`
	Files        []string                  `json:"files"`
	Refinement   *schema.RefinementRequest `json:"refinement,omitempty"`
	// Tree is the tree the attempt left, TimedOut whether its tests did
	// not end: a retry that leaves the same tree is not tested again.
	Tree     string `json:"tree,omitempty"`
	TimedOut bool   `json:"timed_out,omitempty"`
}

// step implements one step: attempts (the first, then coder retries with
// the failure) each tested; a passing attempt is committed, a failing
// one's changes discarded.
func (r *runner) step(ctx context.Context, part schema.MetaPart, remaining []schema.PlanStep, step schema.PlanStep) (StepOutcome, error) {
	key := keyStepResult + part.ID + ":" + step.ID
	var res StepOutcome
	if ok, err := r.sess.Get(key, &res); err != nil || ok {
		return res, err
	}
	res = StepOutcome{Part: part.ID, Step: step.ID, Description: step.Description}
	base := r.out.TaskID + ":impl:" + part.ID + ":" + step.ID
	var prev *attemptResult
	for k := 0; k <= r.opts.Config.Orchestrator.MaxRetriesPerStep; k++ {
		taskID := base
		if k > 0 {
			taskID = fmt.Sprintf("%s:retry_%d", base, k)
		}
		var a attemptResult
		err := r.pass(ctx, passSpec{key: keyAttempt + taskID, taskID: taskID, passType: schema.PassStepImplement, partID: part.ID, stepID: step.ID,
			task: step.Description + mentionFiles(step.TargetFiles, step.TargetSymbols)}, &a,
			func(ctx context.Context, p *passRun) error {
				var err error
				a, err = r.attempt(ctx, p, part, remaining, step, k+1, prev)
				if err == nil && !a.Passed {
					err = errStepFailed
				}
				return err
			})
		if err != nil && !isPassFailure(err) {
			return res, err
		}
		res.Attempts, res.Passed, res.FailingTests, res.Files = k+1, a.Passed, a.FailingTests, a.Files
		res.Error = ""
		if err != nil && !errors.Is(err, errStepFailed) {
			res.Error = err.Error()
		}
		if a.Passed {
			break
		}
		prev = &a
	}
	if res.Passed {
		var err error
		if r.diff, err = r.wt.Diff(ctx); err != nil {
			return res, err
		}
	}
	// Together: a kill between them would leave the step done without its
	// changes in the prior changes the next prompts show.
	return res, r.sess.PutAll(map[string]any{key: res, keyCumulative: r.diff})
}

// errStepFailed marks an attempt whose tests failed: a pass failure.
var errStepFailed = errors.New("the tests failed")

// attempt is one implement attempt inside its pass: retrieval (re-entered
// with the previous attempt's refinement request), the coder's edits, the
// tests (always), and the commit or the reset.
func (r *runner) attempt(ctx context.Context, p *passRun, part schema.MetaPart, remaining []schema.PlanStep, step schema.PlanStep, n int, prev *attemptResult) (attemptResult, error) {
	in := prompt.ImplementInput{Task: r.q.Task, Plan: planText(r.q.Plan, step, remaining), Step: &step,
		PriorChanges: bounded(r.diff, maxPriorChanges)}
	paths := slices.Clone(step.TargetFiles)
	retry := ""
	if prev != nil {
		retry = prev.Failure
		paths = append(paths, prev.Files...)
	}
	files, refused, err := execute.FilesToEdit(r.wt.Dir, paths)
	if err != nil {
		return attemptResult{}, err
	}
	// A refused file has no id in the knowledge base (indexing skipped it
	// as symlink_outside, or it was never a path of the tree), so no
	// retrieval decision can name it: the refusal is a problem of the run.
	for _, pe := range refused {
		r.problem("part %s, step %s: %s not shown to the model (%s): %s", part.ID, step.ID, pe.Path, pathrule.OutsideWorktree, pe.Reason)
	}
	in.Files = files
	render := func(pkg prompt.Package) prompt.Prompt {
		in.Context, in.Failure = pkg.Files, pkg.Retry
		return prompt.ImplementPrompt(in)
	}
	pkg, err := p.retrieveWith(ctx, p.spec.task, retry, prev, render)
	if err != nil {
		return attemptResult{}, err
	}
	in.Context, in.Failure = pkg.Files, pkg.Retry
	client, err := r.clients.Get(schema.StageImplement)
	if err != nil {
		return attemptResult{}, err
	}
	att, err := execute.Implement(ctx, client, p.spec.taskID, in, r.wt.Dir)
	if err != nil {
		return attemptResult{}, err
	}
	// The tests run after every attempt, whatever the patch did, unless
	// the attempt left the tree of the one before whose tests timed out:
	// they would hang the same way.
	tree, err := r.wt.Tree(ctx)
	if err != nil {
		return attemptResult{}, err
	}
	var rep Report
	if prev != nil && prev.TimedOut && prev.Tree == tree {
		rep = Report{Test: Result{Kind: KindTest, Command: r.testing.TestCommand, ExitCode: -1, TimedOut: true,
			Output: "[cra: this attempt left the same files as the one before, whose tests did not end in time: not run again]\n"}}
	} else if rep, err = r.validate(ctx); err != nil {
		return attemptResult{}, err
	}
	a := attemptResult{Passed: rep.Passed() && att.PatchApplied(), FailingTests: rep.Test.FailingTests, Files: att.Applied.Files(),
		Tree: tree, TimedOut: rep.Test.TimedOut}
	v := &kb.Validation{Success: rep.Passed(), TestOutput: rep.Test.Output, FailingTests: rep.Test.FailingTests}
	if rep.Lint != nil {
		v.LintOutput = rep.Lint.Output
	}
	if rep.TypeCheck != nil {
		v.TypeCheckOut = rep.TypeCheck.Output
	}
	r.held.attempt(kb.RunAttempt{Attempt: n, PromptTokens: att.PromptTokens, CompletionTokens: att.CompletionTokens,
		Latency: att.Latency, RawResponse: att.Response, PatchApplied: att.PatchApplied(), At: time.Now().UTC()}, v)
	if a.Passed {
		if _, err := r.wt.Commit(ctx, fmt.Sprintf("cra %s: %s/%s: %s", r.out.TaskID, part.ID, step.ID, firstLine(step.Description))); err != nil {
			return a, err
		}
		head, err := git(ctx, r.wt.Dir, "rev-parse", "HEAD")
		r.prog.Head = head
		return a, err
	}
	a.Failure = failure(att, rep)
	a.Refinement = refinementFor(r.graph, r.wt.Dir, p.kept, att, rep)
	return a, r.wt.Reset(ctx)
}

// adjust is the adjustment pass after a step (always): its steps replace
// the remaining ones, a kept one as the plan gave it. An adjustment that stays unusable for
// [orchestrator] max_adjustment_rounds rounds leaves them as they were.
func (r *runner) adjust(ctx context.Context, part schema.MetaPart, done, remaining []schema.PlanStep, last StepOutcome) ([]schema.PlanStep, error) {
	after := done[len(done)-1].ID
	doneIDs := make([]string, len(done))
	for i, s := range done {
		doneIDs[i] = s.ID
	}
	testResults := fmt.Sprintf("step %s: tests %s after %d attempt(s)", last.Step, map[bool]string{true: "passed", false: "failed"}[last.Passed], last.Attempts)
	if len(last.FailingTests) > 0 {
		testResults += "\nfailing: " + strings.Join(last.FailingTests, ", ")
	}
	rounds := max(1, r.opts.Config.Orchestrator.MaxAdjustmentRounds)
	for round := 1; round <= rounds; round++ {
		taskID := r.out.TaskID + ":adjust:" + part.ID + ":after_" + after
		if round > 1 {
			taskID += fmt.Sprintf(":round_%d", round)
		}
		var adj schema.PlanAdjustment
		err := r.pass(ctx, passSpec{key: keyAdjustment + part.ID + ":" + after + roundSuffix(round), taskID: taskID, passType: schema.PassAdjustment,
			partID: part.ID, stepID: after, task: part.Description}, &adj,
			func(ctx context.Context, p *passRun) error {
				in := prompt.PlanInput{Task: r.q.Task, Part: &part, Done: done, Remaining: remaining, TestResults: testResults,
					PriorChanges: bounded(r.diff, maxPriorChanges)}
				pkg, err := p.retrieve(ctx, p.spec.task, func(pkg prompt.Package) prompt.Prompt {
					in.Files = pkg.Files
					return prompt.PlanPrompt(prompt.PlanAdjustment, in)
				})
				if err != nil {
					return err
				}
				in.Files = pkg.Files
				adj, err = askPass(ctx, p, schema.StageAdjustment, prompt.PlanPrompt(prompt.PlanAdjustment, in), func(text string) (schema.PlanAdjustment, error) {
					return prompt.ParseAdjustment(text, doneIDs, remaining)
				})
				return err
			})
		switch {
		case err == nil:
			return adj.Steps(), nil
		case !isPassFailure(err):
			return nil, err
		}
		r.problem("part %s: adjustment after %s, round %d: %v", part.ID, after, round, err)
	}
	return remaining, nil
}

func roundSuffix(round int) string {
	if round == 1 {
		return ""
	}
	return fmt.Sprintf(":round_%d", round)
}

// finish ends the run: its status, the final diff, the rows, the session
// archived, the worktree removed (the branch stays), --apply.
func (r *runner) finish(ctx context.Context) error {
	var err error
	if r.out.Diff, err = r.wt.Diff(ctx); err != nil {
		return err
	}
	if r.out.Files, err = changedFiles(ctx, r.wt); err != nil {
		return err
	}
	passed := 0
	for _, s := range r.out.Steps {
		if s.Passed {
			passed++
		}
	}
	switch {
	case passed > 0 && passed == len(r.out.Steps) && r.out.PartsDone == r.out.Parts:
		r.out.Status = StatusComplete
	case passed > 0:
		r.out.Status = StatusPartial
	default:
		r.out.Status = StatusFailed
	}
	if err := r.write(ctx, func(w kb.Writer) error {
		if r.runID != 0 {
			if err := kb.UpdateOrchestratorRun(ctx, w.Conn, r.runID, r.progress(r.out.Status)); err != nil {
				return err
			}
		}
		// The run's tokens are its passes' (a resumed run's process made
		// only some of the calls).
		tokens, err := kb.PassTokens(ctx, w.Conn, r.out.TaskID)
		if err != nil {
			return err
		}
		if err := kb.FinishTaskRun(ctx, w.Conn, r.out.TaskID, kb.TaskRunEnd{Success: r.out.Status == StatusComplete,
			TotalTokens: tokens, FinalDiff: r.held.masked(r.out.Diff)}); err != nil {
			return err
		}
		return r.sess.ArchiveRow(ctx, w.Conn, r.held.masked) // the run is over: a resume has nothing left to do
	}); err != nil {
		return err
	}
	if err := r.sess.Remove(); err != nil {
		return err
	}
	if err := r.wt.Remove(ctx); err != nil {
		return err
	}
	if r.opts.Apply && r.out.Diff != "" {
		if err := ApplyTo(ctx, r.repo.Path, r.out.Diff); err != nil {
			return err
		}
		r.out.Applied = true
	}
	return nil
}

// updateRun writes the orchestrator run's counts and status.
func (r *runner) updateRun(ctx context.Context, status string) error {
	if r.runID == 0 {
		return nil
	}
	return r.write(ctx, func(w kb.Writer) error { return kb.UpdateOrchestratorRun(ctx, w.Conn, r.runID, r.progress(status)) })
}

// progress is the orchestrator run's counts, with status.
func (r *runner) progress(status string) kb.OrchestratorProgress {
	p := kb.OrchestratorProgress{TotalParts: r.out.Parts, TotalSteps: len(r.out.Steps), PartsCompleted: r.out.PartsDone, Status: status}
	for _, s := range r.out.Steps {
		if s.Passed {
			p.StepsCompleted++
		}
	}
	if status != "running" {
		now := time.Now().UTC()
		p.Completed = &now
	}
	return p
}

// problem records what went wrong in a run and goes on; a problem already
// recorded (a retry refused the same file) is not repeated.
func (r *runner) problem(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if slices.Contains(r.out.Problems, msg) {
		return
	}
	r.out.Problems = append(r.out.Problems, msg)
	r.opts.Log.Warn(msg, "task_id", r.out.TaskID)
}

// validate is a step's verdict: the repository's tests, or the judge
// cra eval gave.
func (r *runner) validate(ctx context.Context) (Report, error) {
	judge := r.opts.Judge
	if judge == nil {
		judge = func(ctx context.Context, dir string) (Report, error) { return Validate(ctx, r.box, dir, r.testing) }
	}
	rep, err := judge(ctx, r.wt.Dir)
	if rep.Warning != "" {
		r.problem("%s", rep.Warning)
	}
	return rep, err
}

// write runs fn in one transaction of the raw store, through the run's
// lease: the passes' writes, which follow one another closely when the
// model is fast, share one opening of the store.
func (r *runner) write(ctx context.Context, fn func(w kb.Writer) error) error {
	return r.raw.Write(ctx, func(w kb.Writer) error {
		return w.Tx(ctx, func() error { return fn(w) })
	})
}

func (r *runner) close() {
	if r.clients != nil {
		err := r.clients.Close()
		// Calls of a pass that broke off: kept, as every call is (a resume
		// forgets them with the rest of the pass).
		if _, calls, _ := r.held.take(); err == nil && len(calls) > 0 {
			err = r.write(context.Background(), func(w kb.Writer) error { return kb.AppendLLMCalls(w, calls) })
		}
		if err != nil {
			r.opts.Log.Warn("model call log", "error", err)
		}
	}
	if r.raw != nil && r.ownRaw {
		if err := r.raw.Close(); err != nil {
			r.opts.Log.Warn("close the raw store", "error", err)
		}
	}
	if r.curated != nil && r.ownCurated {
		r.curated.Close()
	}
	if r.wt != nil {
		r.wt.Release() // removed by finish, or left for --resume
	}
	if r.lock != nil {
		r.lock.Release()
	}
}
