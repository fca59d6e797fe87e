package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/cra-dev/cra/agent/execute"
	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// passSpec names a pass: the session key of its result, its task id, its
// kind and place, and the text retrieval seeds from.
type passSpec struct {
	key, taskID, passType, partID, stepID, task string
}

// passRun is a pass in progress: its task_runs row, its retrieval
// pipeline (with its own session) and what retrieval kept.
type passRun struct {
	r    *runner
	spec passSpec
	pipe *retrieval.Pipeline
	kept []string
}

// errPassFailed wraps what made a pass fail without breaking the run: an
// answer that stayed unusable, a context over budget, failing tests.
type errPassFailed struct{ err error }

func (e *errPassFailed) Error() string { return e.err.Error() }
func (e *errPassFailed) Unwrap() error { return e.err }

// isPassFailure reports whether err is a pass's own failure, which the
// run records and goes on from.
func isPassFailure(err error) bool {
	var pf *errPassFailed
	return errors.As(err, &pf)
}

// pass runs one pass — or, when the session has its result (a resumed
// run), replays it without a call or a row. A run pass is a task_runs row
// under spec.taskID, a retrieval pipeline with its own session (archived
// at the end), fn's execute call, and an orchestrator_passes row; then its
// result v goes to the session with the run's progress, the point from
// which a resume starts.
func (r *runner) pass(ctx context.Context, spec passSpec, v any, fn func(ctx context.Context, p *passRun) error) error {
	var failed string
	if ok, err := r.sess.Get(spec.key, v); err != nil || ok {
		if ok, _ := r.sess.Get(spec.key+":failed", &failed); ok {
			return &errPassFailed{errors.New(failed)}
		}
		return err
	}
	if err := kb.RemoveSession(r.opts.Home, spec.taskID); err != nil {
		return err
	}
	mode := spec.passType
	if mode == schema.PassStepImplement {
		mode = schema.StageImplement
	}
	stage := mode
	model, err := llm.NewRouter(r.opts.Config).Resolve(llm.StageRole(stage), stage)
	if err != nil {
		return err
	}
	p := &passRun{r: r, spec: spec}
	start := time.Now()
	tokens := r.clients.Tokens()
	sess, err := kb.OpenSession(r.opts.Home, spec.taskID)
	if err != nil {
		return err
	}
	lim := retrieval.DefaultLimits
	lim.CoChangeMin = r.opts.Config.Bootstrap.CoChangeMinCount
	p.pipe = &retrieval.Pipeline{KB: kb.NewKnowledgeBase(r.curated.DB), Repo: r.repo, Graph: r.graph, Limits: lim, Budget: r.budget,
		MaxRefinements: r.opts.Config.Orchestrator.MaxRefinementLoops, Client: r.clients.Get, Session: sess, Execute: stage, Log: r.opts.Log,
		Record: r.held.record}
	runErr := fn(ctx, p)
	if runErr != nil && ctx.Err() == nil && passFailure(runErr) {
		runErr = &errPassFailed{runErr}
	}
	if runErr != nil && !isPassFailure(runErr) {
		return runErr // interrupted or broken: the pass is redone on resume
	}
	if err := r.clients.Flush(); err != nil {
		return err // every call of the pass is held before its rows are written
	}
	decisions, calls, attempts := r.held.take()
	end := kb.TaskRunEnd{Success: runErr == nil, TotalTokens: r.clients.Tokens() - tokens, TotalLatency: time.Since(start)}
	if err := r.write(ctx, func(w kb.Writer) error {
		taskRunID, err := kb.BeginTaskRun(ctx, w.Conn, kb.TaskRun{TaskID: spec.taskID, RepoPath: r.repo.Path, Mode: mode,
			ExecuteModel: model.Model, ContextWindow: r.opts.Config.Models.ContextWindow, ReservedTokens: r.opts.Config.Budget.ReservedTokens,
			Stages: append(slices.Clone(retrieval.Stages), stage), Started: start.UTC()})
		if err != nil {
			return err
		}
		if err := kb.FinishTaskRun(ctx, w.Conn, spec.taskID, end); err != nil {
			return err
		}
		if err := writeHeld(ctx, w, taskRunID, decisions, calls, attempts); err != nil {
			return err
		}
		if r.runID != 0 {
			if err := kb.AppendOrchestratorPass(ctx, w.Conn, kb.OrchestratorPass{RunID: r.runID, TaskRunID: taskRunID,
				PassType: spec.passType, PartID: spec.partID, StepID: spec.stepID, Sequence: len(r.prog.Done) + 1, At: start.UTC()}); err != nil {
				return err
			}
		}
		return sess.ArchiveRow(ctx, w.Conn, r.held.masked)
	}); err != nil {
		return err
	}
	if err := sess.Remove(); err != nil {
		return err
	}
	// The commit point of the pass: its result and the progress.
	r.prog.Done = append(r.prog.Done, spec.taskID)
	commit := map[string]any{spec.key: v, keyProgress: r.prog}
	if runErr != nil {
		commit[spec.key+":failed"] = runErr.Error()
	}
	if err := r.sess.PutAll(commit); err != nil {
		return err
	}
	return runErr
}

// passFailure reports whether err is a pass's own failure: the model's
// answers stayed unusable, the context could not fit, the tests failed.
func passFailure(err error) bool {
	var unusable *retrieval.UnusableAnswerError
	return errors.As(err, &unusable) || errors.Is(err, llm.ErrOverBudget) || errors.Is(err, errStepFailed) ||
		errors.Is(err, retrieval.ErrRefinementLimit)
}

// retrieve runs the pass's retrieval for task, the package fitted to the
// execute prompt render builds.
func (p *passRun) retrieve(ctx context.Context, task string, render func(prompt.Package) prompt.Prompt) (prompt.Package, error) {
	return p.retrieveWith(ctx, task, "", nil, render)
}

// retrieveWith is retrieve for an implement attempt: the package carries
// the previous attempt's failure (retry details, cut first), and when that
// attempt asked for more context, retrieval is re-entered with its
// request.
func (p *passRun) retrieveWith(ctx context.Context, task, retry string, prev *attemptResult, render func(prompt.Package) prompt.Prompt) (prompt.Package, error) {
	p.pipe.Render, p.pipe.Retry = render, retry
	c, err := p.pipe.Run(ctx, p.spec.taskID, task)
	if err == nil && prev != nil && prev.Refinement != nil {
		if err = p.pipe.Session.Put(retrieval.KeyRefinementRequest, prev.Refinement); err == nil {
			c, err = p.pipe.Reenter(ctx, p.spec.taskID)
		}
	}
	if err != nil {
		return prompt.Package{}, err
	}
	p.kept = c.KeptPaths()
	return c.Package, nil
}

// askPass asks a plan pass's model (reasoning role) for a structured answer.
func askPass[T any](ctx context.Context, p *passRun, stage string, pr prompt.Prompt, parse func(string) (T, error)) (T, error) {
	var zero T
	client, err := p.r.clients.Get(stage)
	if err != nil {
		return zero, err
	}
	return retrieval.Ask(ctx, client, p.spec.taskID, stage, pr, parse)
}

// partOrder orders parts so a part comes after the parts it depends on,
// otherwise in the meta plan's order.
func partOrder(parts []schema.MetaPart) []schema.MetaPart {
	var out []schema.MetaPart
	done := map[string]bool{}
	for len(out) < len(parts) {
		progressed := false
		for _, p := range parts {
			if done[p.ID] {
				continue
			}
			ready := true
			for _, d := range p.DependsOn {
				if !done[d] && slices.ContainsFunc(parts, func(q schema.MetaPart) bool { return q.ID == d }) {
					ready = false
				}
			}
			if ready {
				out, done[p.ID], progressed = append(out, p), true, true
			}
		}
		if !progressed { // a cycle the validation let through: the rest in order
			for _, p := range parts {
				if !done[p.ID] {
					out, done[p.ID] = append(out, p), true
				}
			}
		}
	}
	return out
}

// mentionFiles appends the files and symbols a pass is about to the text
// retrieval reads, so they become its seeds (tier 1).
func mentionFiles(files, symbols []string) string {
	var b strings.Builder
	if len(files) > 0 {
		fmt.Fprintf(&b, "\nFiles: %s", strings.Join(files, " "))
	}
	if len(symbols) > 0 {
		fmt.Fprintf(&b, "\nSymbols: `%s`", strings.Join(symbols, "` `"))
	}
	return b.String()
}

// planText is the plan an implement pass follows: the given plan (--plan),
// or the step and the steps left of its part.
func planText(plan *schema.PlanArtifact, step schema.PlanStep, remaining []schema.PlanStep) string {
	if plan != nil {
		return prompt.RenderPlan(*plan)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s (now)\n", step.ID, firstLine(step.Description))
	for _, s := range remaining {
		fmt.Fprintf(&b, "%s: %s (later)\n", s.ID, firstLine(s.Description))
	}
	return b.String()
}

// failure is what a retry's prompt says of the attempt before it.
func failure(a execute.Attempt, rep Report) string {
	var b strings.Builder
	if a.Err != nil {
		fmt.Fprintf(&b, "Your edits could not be applied: %v\n", a.Err)
	}
	if len(a.Edits) > 0 {
		fmt.Fprintf(&b, "Your previous edits:\n%s\n", prompt.RenderEdits(a.Edits))
	}
	if !rep.Passed() {
		if len(rep.Test.FailingTests) > 0 {
			fmt.Fprintf(&b, "Failing tests: %s\n", strings.Join(rep.Test.FailingTests, ", "))
		}
		fmt.Fprintf(&b, "Test output (end):\n%s\n", Tail(rep.Test.Output, maxTestTail))
	}
	return b.String()
}

// fileInOutput finds repository-relative source paths in test output.
var fileInOutput = regexp.MustCompile(`[\w./-]+\.(?:py|go|js|jsx|ts|tsx|rs|java|rb|c|h|cpp)\b`)

// refinementFor is the request for more context a failed attempt makes
// when its failure names files of the repository that were not in the
// context (a test file in a traceback, a module in an import error), with
// the failing tests; nil when it names no such file.
func refinementFor(g *retrieval.KnowledgeGraph, dir string, kept []string, a execute.Attempt, rep Report) *schema.RefinementRequest {
	if rep.Passed() && a.Err == nil {
		return nil
	}
	req := schema.RefinementRequest{Reason: "the attempt failed: its output names code the context did not hold", MissingTests: rep.Test.FailingTests}
	for _, m := range fileInOutput.FindAllString(rep.Test.Output, -1) {
		m = strings.TrimPrefix(strings.TrimPrefix(m, dir+"/"), "./") // tracebacks name files by absolute path
		for _, p := range g.FilesNamed(m) {
			if !slices.Contains(kept, p) && !slices.Contains(req.MissingFiles, p) && len(req.MissingFiles) < 5 {
				req.MissingFiles = append(req.MissingFiles, p)
			}
		}
	}
	if len(req.MissingFiles) == 0 {
		return nil // nothing outside the context: the retry's failure details say the rest
	}
	if len(req.MissingTests) > 5 {
		req.MissingTests = req.MissingTests[:5]
	}
	return &req
}

// bounded cuts text to its first max bytes, saying so.
func bounded(text string, max int) string {
	if len(text) <= max {
		return text
	}
	cut := strings.LastIndexByte(text[:max], '\n') + 1
	return text[:cut] + fmt.Sprintf("… (%d more bytes)\n", len(text)-cut)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// changedFiles are the paths the run changed from its base.
func changedFiles(ctx context.Context, w *Worktree) ([]string, error) {
	out, err := git(ctx, w.Dir, "diff", "--name-only", w.Base)
	if err != nil || out == "" {
		return nil, err
	}
	return strings.Split(out, "\n"), nil
}

// sessionIDs are the task ids of the live sessions in home.
func sessionIDs(home string) []string {
	entries, _ := os.ReadDir(kb.SessionsDir(home))
	var out []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			out = append(out, name)
		}
	}
	return out
}
