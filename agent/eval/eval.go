package eval

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/orchestrator"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/ingest"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// Options configure one cra eval.
type Options struct {
	Home   string
	Config config.Config
	// Name and Oracle identify the eval: a re-run of the same pair resumes
	// it. Name defaults to the selection ("validation-n20-seed1").
	Name      string
	Oracle    []string
	Selection Selection
	// Stages are the stages reported ("" : all); every stage is scored.
	Stages []string
	Jobs   int
	// Compare names an earlier eval to report paired differences against.
	Compare string
	// Wait is how long to wait for another process running the same eval
	// (name and oracle set); 0 fails at once, naming it.
	Wait         time.Duration
	GraphOptions retrieval.GraphOptions
	NewClient    func(llm.ModelConfig) (llm.Client, error)
	// PingTimeout bounds the preflight's ping of each model (0: llm's
	// default).
	PingTimeout time.Duration
	Log         *slog.Logger
	// Progress counts tasks done and names the step under way; nil for
	// none.
	Progress Progress
}

// Progress is what an eval tells of its progress: a phase and its total,
// units done, the step under way (internal/progress's bar or log lines).
type Progress interface {
	Phase(name string, total int64)
	Add(n int64)
	Step(text string)
}

// Lock is the batch name of an eval's input lock (kb.LockInput), held for
// the whole run; LockInput is its input: the eval's name and oracle set.
const Lock = "eval"

// LockInput names an eval's lock.
func LockInput(name string, oracle []string) string {
	return name + " oracle=" + strings.Join(sortedCopy(oracle), ",")
}

// DefaultName is the name an eval of sel gets without --name.
func DefaultName(sel Selection) string {
	n := "all"
	if sel.Sample > 0 {
		n = fmt.Sprint(sel.Sample)
	}
	return fmt.Sprintf("%s-n%s-seed%d", sel.Split, n, sel.Seed)
}

// Run runs an eval: the held-out tasks of the selection not done yet, in
// units of consecutive tasks of one repository (each with its scratch
// knowledge base, moved forward from parent to parent), --jobs units at a
// time; each task a logged cra solve run scored against its ground truth
// and written with its scores in one transaction. Then the scoreboard.
// When there are tasks to run, the models they call are pinged first,
// once each: one that does not answer is an *llm.UnansweredError, and
// nothing is written.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Jobs <= 0 {
		opts.Jobs = 1
	}
	opts.Oracle = sortedCopy(opts.Oracle)
	for _, s := range opts.Oracle {
		if !slices.Contains(OracleStages, s) {
			return nil, usage.Errorf("--oracle %s: stages with ground truth are %s", s, strings.Join(OracleStages, ","))
		}
	}
	if opts.Name == "" {
		opts.Name = DefaultName(opts.Selection)
	}
	// One process per eval (name and oracle set): two would run the same
	// tasks side by side and record each other's runs as failed.
	lock, err := kb.LockInput(ctx, opts.Home, Lock, LockInput(opts.Name, opts.Oracle), "cra eval --name "+opts.Name, opts.Wait)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	var tasks []Task
	var run runRow
	raw := newRaw(opts.Home)
	defer raw.Close()
	pending := 0
	err = raw.Write(ctx, func(w kb.Writer) error {
		var err error
		if tasks, err = Select(ctx, w.DB, opts.Selection); err != nil {
			return err
		}
		if len(tasks) == 0 {
			return usage.Errorf("no held-out task in the %s split of the selected repositories: widen --split or --repos, or mine more history", opts.Selection.Split)
		}
		pending, err = pendingTasks(ctx, w.Conn, opts.Name, opts.Oracle, tasks)
		return err
	})
	if err != nil {
		return nil, err
	}
	var box orchestrator.Box // where every test of this eval runs
	if pending > 0 {
		// Before the eval's rows: a model that does not answer would fail
		// every task after its retries.
		if err := checkModels(ctx, opts); err != nil {
			return nil, err
		}
		// sandbox = "bwrap" where bubblewrap cannot run: no test may run;
		// tests that will run unconfined are said once here (and in each
		// run's notes).
		if box, err = orchestrator.NewBox(opts.Config.Testing, os.Environ(), opts.Home); err != nil {
			return nil, err
		}
		if box.Warning != "" {
			opts.Log.Warn(box.Warning)
		}
	}
	err = raw.Write(ctx, func(w kb.Writer) error {
		var err error
		run, err = beginRun(ctx, w, runRow{Name: opts.Name, Oracle: opts.Oracle, Split: opts.Selection.Split, Repos: nonNil(opts.Selection.Repos),
			Stages: ScoredStages, Sample: opts.Selection.Sample, Seed: opts.Selection.Seed, Models: models(opts), Started: time.Now().UTC()})
		return err
	})
	if err != nil {
		return nil, err
	}
	var done map[string]bool
	e := &evaluator{opts: opts, run: run, raw: raw, box: box}
	if err := raw.Write(ctx, func(w kb.Writer) error {
		if done, err = doneTasks(ctx, w.Conn, run.ID); err != nil {
			return err
		}
		e.judged, err = commitJudgements(ctx, w.Conn)
		return err
	}); err != nil {
		return nil, err
	}
	var todo []Task
	for _, t := range tasks {
		if !done[t.ID] {
			todo = append(todo, t)
		}
	}
	e.tasks = len(todo)
	opts.Log.Info("eval", "name", run.Name, "oracle", run.Oracle, "tasks", len(tasks), "to_run", len(todo))
	for _, repo := range repos(tasks) {
		// A killed eval's scratch (a commit's own tests, whose result may
		// be cached by now, so the step that made it never runs again).
		if removed := orchestrator.SweepStale(ctx, opts.Home, repo); len(removed) > 0 {
			opts.Log.Info("removed what killed runs left", "repo", repo, "removed", removed)
		}
	}
	if opts.Progress != nil {
		opts.Progress.Phase("tasks", int64(len(todo)))
	}
	scratch := filepath.Join(KnowledgeDir(opts.Home), fmt.Sprint(run.ID))
	var failed atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.Jobs)
	for i, unit := range units(todo, opts.Jobs) {
		k := &knowledge{dir: filepath.Join(scratch, fmt.Sprint(i)), repo: unit[0].Repo,
			opts: ingest.Options{Jobs: 1, MaxFileBytes: opts.Config.Index.MaxFileBytes, CoChangeMaxFiles: opts.Config.Index.CoChangeMaxFiles}}
		g.Go(func() error {
			defer k.close()
			for _, t := range unit {
				if gctx.Err() != nil {
					return gctx.Err()
				}
				row, err := e.runTask(gctx, k, t)
				if err != nil {
					return err
				}
				if row.Status == TaskError {
					failed.Add(1)
					opts.Log.Error("eval task failed to run", "task", t.ID, "commit", t.Commit, "error", row.Error)
				}
				orchestrator.DiscardWorktree(context.WithoutCancel(gctx), opts.Home, t.Repo, solveID(run.ID, t.ID))
				if opts.Progress != nil {
					opts.Progress.Add(1)
				}
			}
			return nil
		})
	}
	runErr := g.Wait()
	status := "complete"
	switch {
	case ctx.Err() != nil:
		status = kb.StatusInterrupted
	case runErr != nil:
		status = kb.StatusFailed
	case failed.Load() > 0:
		status = "partial"
	}
	bg := context.WithoutCancel(ctx)
	if err := raw.Write(bg, func(w kb.Writer) error { return finishRun(bg, w, run.ID, status) }); err != nil {
		return nil, errors.Join(runErr, err)
	}
	if runErr != nil {
		return nil, runErr
	}
	_ = os.RemoveAll(scratch)
	sweep(bg, opts.Home, tasks, run.ID)
	return board(ctx, opts, raw, run)
}

// repos are the repositories of tasks, each once, in order.
func repos(tasks []Task) []string {
	var out []string
	for _, t := range tasks {
		if !slices.Contains(out, t.Repo) {
			out = append(out, t.Repo)
		}
	}
	return out
}

// sweep removes the branches and worktrees this eval's runs left in their
// repositories (a kill between a task's rows and its cleanup leaves one):
// the runs' diffs are in the raw store.
func sweep(ctx context.Context, home string, tasks []Task, runID int64) {
	for _, repo := range repos(tasks) {
		prefix := orchestrator.BranchFor(solveID(runID, strings.Repeat("0", 16)))
		prefix = strings.TrimSuffix(prefix, strings.Repeat("0", 16))
		out, err := gitOut(ctx, repo, "branch", "--list", "--format=%(refname:short)", prefix+"*")
		if err != nil || out == "" {
			continue
		}
		for _, b := range strings.Split(out, "\n") {
			orchestrator.DiscardWorktree(ctx, home, repo, strings.TrimPrefix(b, schema.AgentBranchPrefix))
		}
	}
}

// runTask runs one task and records it: its scores, or why it could not
// run. A run that could not execute (indexing, git, the store) is an
// error row, not a score: the model is judged only on runs that happened.
// Reading the finished run back, scoring it and writing the rows share
// one opening of the raw store.
func (e *evaluator) runTask(ctx context.Context, k *knowledge, t Task) (taskRow, error) {
	start := time.Now()
	row := taskRow{Task: t, Status: TaskScored}
	record := func(fn func(w kb.Writer) error) (taskRow, error) {
		err := e.raw.Write(ctx, func(w kb.Writer) error {
			if fn != nil {
				if err := fn(w); err != nil {
					row.Status, row.Error, row.Scores = TaskError, err.Error(), nil
				}
			}
			row.Elapsed = time.Since(start)
			return writeTask(ctx, w, e.run.ID, row)
		})
		return row, err
	}
	fail := func(err error) (taskRow, error) {
		if ctx.Err() != nil {
			return row, ctx.Err() // interrupted: not a result
		}
		row.Status, row.Error = TaskError, err.Error()
		return record(nil)
	}
	tc := e.opts.Config.Testing.For(t.Repo)
	phase := e.phases(t)
	defer phase("")
	j, err := e.judgement(ctx, t, tc, phase)
	if err != nil {
		return fail(fmt.Errorf("the commit's tests: %w", err))
	}
	row.JudgedBy = j.JudgedBy
	id := solveID(e.run.ID, t.ID)
	ran := false
	if e.run.resumed {
		// A killed eval may have finished this run but not recorded it.
		s, ok, err := finished(ctx, e.raw, id)
		if err != nil {
			return fail(err)
		}
		ran = ok && s.TaskRunID != 0
		if ran {
			// Killed after the run's last write, before its session file
			// was removed: the run is archived, the file is stale.
			if err := kb.RemoveSession(e.opts.Home, id); err != nil {
				return fail(err)
			}
		}
	}
	if !ran {
		phase("the knowledge base at the parent")
		if err := k.at(ctx, t.Parent); err != nil {
			return fail(err)
		}
		so := orchestrator.Options{Home: e.opts.Home, Raw: e.raw, Knowledge: k.store, Repo: t.Repo, Rev: t.Parent, Task: t.Text,
			Config: e.opts.Config, GraphOptions: e.opts.GraphOptions, Log: e.opts.Log, NewClient: oracleClients(e.opts, t), ModelsChecked: true}
		so.Judge = stepJudge(j, tc, e.box)
		if live(e.opts.Home, id) {
			so.Resume = id
		} else {
			so.TaskID = id
		}
		phase("the agent's run")
		if _, err := orchestrator.Solve(ctx, so); err != nil {
			return fail(fmt.Errorf("solve %s: %w", id, err))
		}
	}
	runPassed := false
	if j.JudgedBy == JudgedByTests {
		phase("the commit's tests on the run's result")
		if runPassed, err = runPasses(ctx, e.opts.Home, t, j, tc, e.box, orchestrator.BranchFor(id)); err != nil {
			return fail(fmt.Errorf("the run's tests: %w", err))
		}
	}
	return record(func(w kb.Writer) error {
		s, ok, err := kb.FinishedSolveRun(ctx, w.Conn, id)
		if err != nil || !ok {
			return errors.Join(err, fmt.Errorf("solve %s left no finished run", id))
		}
		v, err := readView(ctx, w.Conn, t.Repo, id, s, t)
		if err != nil {
			return err
		}
		row.TaskRunID, row.ModelMS = &s.TaskRunID, s.ModelMS
		row.Scores = score(t, v, j, runPassed)
		return nil
	})
}

// evaluator is one eval in progress.
type evaluator struct {
	opts Options
	run  runRow
	raw  *kb.Lease
	box  orchestrator.Box // where its tests run
	// tasks is how many tasks this run has to do, started how many it began.
	tasks   int
	started atomic.Int64
	// judged caches eval_commit_judgements, loaded once.
	mu     sync.Mutex
	judged map[string]judgement
}

// judgement is how t's run is judged: from the cache, or decided once
// (judgeCommit); a repository without a test command is judged by
// reproduction.
func (e *evaluator) judgement(ctx context.Context, t Task, tc config.Testing, phase func(string)) (judgement, error) {
	if strings.TrimSpace(tc.TestCommand) == "" {
		return judgement{JudgedBy: JudgedByReproduction, Reason: ReasonNoTestCommand}, nil
	}
	key := t.Repo + "\x00" + t.Commit + "\x00" + tc.TestCommand
	e.mu.Lock()
	j, ok := e.judged[key]
	e.mu.Unlock()
	if ok {
		return j, nil
	}
	j, err := judgeCommit(ctx, e.opts.Home, e.raw, t, tc, e.box, phase)
	if err == nil {
		e.mu.Lock()
		e.judged[key] = j
		e.mu.Unlock()
	}
	return j, err
}

// phases returns what names t's current phase on the progress line
// ("task 13/20 c052ba6: tests at the parent"; "" when it ends).
func (e *evaluator) phases(t Task) func(string) {
	n := e.started.Add(1)
	return func(phase string) {
		switch {
		case e.opts.Progress == nil:
		case phase == "":
			e.opts.Progress.Step("")
		default:
			e.opts.Progress.Step(fmt.Sprintf("task %d/%d %s: %s", n, e.tasks, t.Commit[:7], phase))
		}
	}
}

// stepJudge is the verdict of the run's steps: the repository's tests
// within the eval's timeout for the commit, or, for a task judged without
// tests, the edits applied (no test command: reproduction judges the run;
// undecidable: tests that do not end at the parent would not end in a
// step either).
func stepJudge(j judgement, tc config.Testing, box orchestrator.Box) func(context.Context, string) (orchestrator.Report, error) {
	switch {
	case j.Reason == ReasonNoTestCommand:
		return judgeWithoutTests("no test command for this repository: cra eval judges the run by reproducing its commit")
	case j.JudgedBy == JudgedUndecidable:
		return judgeWithoutTests(fmt.Sprintf("the tests did not end within %s (%s): cra eval runs no test for this task and leaves its success undecided", j.Timeout, j.Reason))
	}
	tc.TimeoutSeconds = int(math.Ceil(j.Timeout.Seconds()))
	return func(ctx context.Context, dir string) (orchestrator.Report, error) {
		return orchestrator.Validate(ctx, box, dir, tc)
	}
}

func finished(ctx context.Context, raw *kb.Lease, id string) (s kb.FinishedSolve, ok bool, err error) {
	err = raw.Write(ctx, func(w kb.Writer) error {
		s, ok, err = kb.FinishedSolveRun(ctx, w.Conn, id)
		return err
	})
	return s, ok, err
}

// live reports whether a solve run of id has a session to resume.
func live(home, id string) bool {
	_, err := os.Stat(filepath.Join(kb.SessionsDir(home), id+".json"))
	return err == nil
}

// solveID is the task id of an eval's run of a task: the same on resume,
// so a killed run continues rather than starting again.
func solveID(runID int64, taskID string) string {
	return fmt.Sprintf("eval%d-%s", runID, taskID[:16])
}

// oracleClients are the run's model clients: the configured models, with
// the oracle stages answered from the task's ground truth.
func oracleClients(opts Options, t Task) func(llm.ModelConfig) (llm.Client, error) {
	return func(cfg llm.ModelConfig) (llm.Client, error) {
		var inner llm.Client
		var err error
		if opts.NewClient != nil {
			inner, err = opts.NewClient(cfg)
		} else {
			inner, err = llm.New(cfg)
		}
		if err != nil {
			return nil, err
		}
		if len(opts.Oracle) == 0 {
			return inner, nil
		}
		return &oracleClient{inner: inner, truth: t.Truth, stages: opts.Oracle}, nil
	}
}

// units splits the tasks (by repository, in commit order) into runs of
// consecutive tasks of one repository: as many per repository as its
// share of jobs, so --jobs spreads over repositories and within them.
func units(tasks []Task, jobs int) [][]Task {
	byRepo := map[string][]Task{}
	var repos []string
	for _, t := range tasks {
		if _, ok := byRepo[t.Repo]; !ok {
			repos = append(repos, t.Repo)
		}
		byRepo[t.Repo] = append(byRepo[t.Repo], t)
	}
	sort.Strings(repos)
	var out [][]Task
	for _, r := range repos {
		ts := byRepo[r]
		k := max(1, min(len(ts), (jobs*len(ts)+len(tasks)-1)/len(tasks)))
		size := (len(ts) + k - 1) / k
		for i := 0; i < len(ts); i += size {
			out = append(out, ts[i:min(len(ts), i+size)])
		}
	}
	return out
}

// models names the model of each scored stage (the oracle's where it
// stands in).
func models(opts Options) map[string]string {
	out := map[string]string{}
	router := llm.NewRouter(opts.Config)
	for _, s := range append(slices.Clone(ScoredStages), schema.StageAdjustment) {
		if slices.Contains(opts.Oracle, s) {
			out[s] = OracleModel
			continue
		}
		if m, err := router.Resolve(llm.StageRole(s), s); err == nil {
			out[s] = m.Model
		}
	}
	return out
}

// checkModels pings, once, each model the eval's runs call: those of
// every stage but the ones the oracle answers. It goes through the
// eval's client factory, as the runs do.
func checkModels(ctx context.Context, opts Options) error {
	stages := slices.DeleteFunc(orchestrator.Stages(false, false), func(s string) bool { return slices.Contains(opts.Oracle, s) })
	return llm.CheckStages(ctx, opts.Config, stages, llm.PingOptions{Timeout: opts.PingTimeout, NewClient: opts.NewClient})
}
