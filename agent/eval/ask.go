package eval

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cra-dev/cra/agent/ask"
	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/ingest"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// AskOptions configure one cra ask --eval.
type AskOptions struct {
	Home   string
	Config config.Config
	// Name and OracleClassify identify the eval: a re-run of the same pair
	// resumes it. Name defaults to AskDefaultName.
	Name string
	// OracleClassify gives each question its known mode (no classify
	// call): the retrieval and answer scores without the classifier's
	// errors.
	OracleClassify bool
	// Repos are the indexed repositories asked about (canonical paths);
	// nil: every indexed one.
	Repos []string
	// Rule is curate-data's split rule: bug-report questions come only
	// from the fixes it holds out.
	Rule   kb.SplitRule
	Sample int // questions per kind; 0: every one
	Seed   int64
	// Wait is how long to wait for another process running the same eval.
	Wait         time.Duration
	GraphOptions retrieval.GraphOptions
	NewClient    func(llm.ModelConfig) (llm.Client, error)
	PingTimeout  time.Duration
	Log          *slog.Logger
	Progress     Progress // questions asked; nil for none
}

// AskTaskPrefix begins the task id of every ask an eval runs.
const AskTaskPrefix = "ask-eval"

// AskDefaultName is the name an ask eval gets without --name.
func AskDefaultName(sample int, seed int64) string {
	n := "all"
	if sample > 0 {
		n = fmt.Sprint(sample)
	}
	return fmt.Sprintf("ask-n%s-seed%d", n, seed)
}

// RunAsk runs an ask eval: questions generated from the repositories
// (AskQuestions), those not asked yet asked through cra ask — a bug
// report at its fix's parent, over a scratch knowledge base of that
// revision — and each scored (ScoreAsk) and written with its question in
// one transaction. Then the report per kind. When there are questions to
// ask, the models are pinged once first; one that does not answer is an
// *llm.UnansweredError and nothing is written.
func RunAsk(ctx context.Context, opts AskOptions) (*AskReport, error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Name == "" {
		opts.Name = AskDefaultName(opts.Sample, opts.Seed)
	}
	oracle := []string{}
	if opts.OracleClassify {
		oracle = []string{schema.StageAskClassify}
	}
	lock, err := kb.LockInput(ctx, opts.Home, Lock, LockInput(opts.Name, oracle), "cra ask --eval --name "+opts.Name, opts.Wait)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	raw := newRaw(opts.Home)
	defer raw.Close()
	qs, err := AskQuestions(ctx, opts, raw)
	if err != nil {
		return nil, err
	}
	want := runRow{Name: opts.Name, Oracle: oracle, Split: SplitAll, Repos: nonNil(opts.Repos), Stages: schema.AskStages,
		Sample: opts.Sample, Seed: opts.Seed, Models: askModels(opts), Started: time.Now().UTC()}
	var run runRow
	done := map[string]bool{}
	if err := raw.Write(ctx, func(w kb.Writer) error {
		prev, err := findRun(ctx, w.Conn, opts.Name, oracle)
		if err == nil && isAskRun(prev.Stages) {
			done, err = doneTasks(ctx, w.Conn, prev.ID)
		}
		return ignoreNoRows(err)
	}); err != nil {
		return nil, err
	}
	var todo []Question
	for _, q := range qs {
		if !done[q.ID] {
			todo = append(todo, q)
		}
	}
	if len(todo) > 0 {
		stages := slices.DeleteFunc(slices.Clone(ask.Stages), func(s string) bool { return slices.Contains(oracle, s) })
		if err := llm.CheckStages(ctx, opts.Config, stages, llm.PingOptions{Timeout: opts.PingTimeout, NewClient: opts.NewClient}); err != nil {
			return nil, err
		}
	}
	if err := raw.Write(ctx, func(w kb.Writer) error {
		run, err = beginRun(ctx, w, want)
		return err
	}); err != nil {
		return nil, err
	}
	opts.Log.Info("ask eval", "name", run.Name, "oracle", run.Oracle, "questions", len(qs), "to_ask", len(todo))
	if opts.Progress != nil {
		opts.Progress.Phase("questions", int64(len(todo)))
	}
	a := &asker{opts: opts, run: run, raw: raw, scratch: filepath.Join(KnowledgeDir(opts.Home), fmt.Sprintf("ask%d", run.ID))}
	failed, runErr := a.askAll(ctx, todo)
	status := "complete"
	switch {
	case ctx.Err() != nil:
		status = kb.StatusInterrupted
	case runErr != nil:
		status = kb.StatusFailed
	case failed > 0:
		status = "partial"
	}
	bg := context.WithoutCancel(ctx)
	if err := raw.Write(bg, func(w kb.Writer) error { return finishRun(bg, w, run.ID, status) }); err != nil {
		return nil, errors.Join(runErr, err)
	}
	if runErr != nil {
		return nil, runErr
	}
	_ = os.RemoveAll(a.scratch)
	return askBoard(ctx, raw, run, status)
}

// AskQuestions generates the questions of an ask eval and draws its
// sample: diagnostic, exploratory and conceptual ones from the home's
// knowledge base, bug reports from the held-out bug fixes bootstrap mined
// in the same repositories (none when it mined none).
func AskQuestions(ctx context.Context, opts AskOptions, raw *kb.Lease) ([]Question, error) {
	repos, qs, err := codeQuestions(ctx, opts)
	if err != nil {
		return nil, err
	}
	err = raw.Write(ctx, func(w kb.Writer) error {
		mined, err := kb.SyntheticRepos(ctx, w.DB)
		if err != nil {
			return err
		}
		var sel []string
		for _, r := range repos {
			if slices.Contains(mined, r) {
				sel = append(sel, r)
			}
		}
		if len(sel) == 0 {
			opts.Log.Info("no bug-report questions: bootstrap mined none of these repositories", "repos", repos)
			return nil
		}
		tasks, err := Select(ctx, w.DB, Selection{Repos: sel, Split: SplitAll, Rule: opts.Rule})
		if err != nil {
			return err
		}
		qs = append(qs, BugReportQuestions(tasks, opts.GraphOptions.Source)...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	qs = SampleQuestions(qs, opts.Sample, opts.Seed)
	if len(qs) == 0 {
		return nil, usage.Errorf("no question could be generated from %s: their code index has no error strings, call chains or "+
			"module docstrings, and no held-out bug fix was mined (index a repository of source code with `cra index`)", strings.Join(repos, ", "))
	}
	return qs, nil
}

// codeQuestions reads the indexed repositories asked about and their
// code-index questions.
func codeQuestions(ctx context.Context, opts AskOptions) (repos []string, qs []Question, err error) {
	s, err := kb.Open(ctx, opts.Home, kb.Curated, kb.Options{Command: "cra ask --eval", Wait: kb.BatchWait})
	if err != nil {
		return nil, nil, err
	}
	defer s.Close()
	k := kb.NewKnowledgeBase(s.DB)
	indexed, err := k.Repos(ctx)
	if err != nil {
		return nil, nil, err
	}
	var paths []string
	for _, r := range indexed {
		paths = append(paths, r.Path)
	}
	if len(indexed) == 0 {
		return nil, nil, usage.Errorf("no repository is indexed in this home: run `cra index <repo>` first")
	}
	for _, r := range opts.Repos {
		if !slices.Contains(paths, r) {
			return nil, nil, usage.Errorf("--repos %s: not an indexed repository (indexed: %s)", r, strings.Join(paths, ", "))
		}
	}
	for _, r := range indexed {
		if opts.Repos != nil && !slices.Contains(opts.Repos, r.Path) {
			continue
		}
		got, err := CodeQuestions(ctx, k, r)
		if err != nil {
			return nil, nil, fmt.Errorf("questions of %s: %w", r.Path, err)
		}
		repos, qs = append(repos, r.Path), append(qs, got...)
	}
	return repos, qs, nil
}

// askModels names the model of each ask stage (the oracle's where it
// stands in).
func askModels(opts AskOptions) map[string]string {
	out := map[string]string{}
	router := llm.NewRouter(opts.Config)
	for _, s := range ask.Stages {
		if s == schema.StageAskClassify && opts.OracleClassify {
			out[s] = OracleModel
			continue
		}
		if m, err := router.Resolve(llm.StageRole(s), s); err == nil {
			out[s] = m.Model
		}
	}
	return out
}

// asker is an ask eval in progress.
type asker struct {
	opts    AskOptions
	run     runRow
	raw     *kb.Lease
	scratch string     // where bug reports' knowledge bases are built
	k       *knowledge // the current repository's, at a fix's parent
	kbs     int        // knowledge bases made so far
	// askRun is ask.Run; a test sees what it is handed instead.
	askRun func(context.Context, ask.Options) (*ask.Result, error)
}

// askAll asks the questions in order and records each; failed counts
// those that could not be answered (a model failure, a missing index).
func (a *asker) askAll(ctx context.Context, qs []Question) (failed int, err error) {
	defer func() {
		if a.k != nil {
			a.k.close()
		}
	}()
	for i, q := range qs {
		if ctx.Err() != nil {
			return failed, ctx.Err()
		}
		if a.opts.Progress != nil {
			a.opts.Progress.Step(fmt.Sprintf("question %d/%d (%s)", i+1, len(qs), q.Kind))
		}
		row, err := a.askOne(ctx, q)
		if err != nil {
			return failed, err
		}
		if row.Status == TaskError {
			failed++
			a.opts.Log.Error("ask eval question failed to run", "question", q.ID, "error", row.Error)
		}
		if a.opts.Progress != nil {
			a.opts.Progress.Add(1)
		}
	}
	return failed, nil
}

// askOne asks q and writes its rows: its question, its eval_tasks row and
// its scores in one transaction, so a killed eval leaves the question
// either recorded or not asked. A question that could not be answered is
// an error row without scores; an interrupted one leaves no row.
func (a *asker) askOne(ctx context.Context, q Question) (taskRow, error) {
	start := time.Now()
	row := taskRow{Task: Task{ID: q.ID, Repo: q.Repo}, Status: TaskScored}
	res, err := a.ask(ctx, q)
	if ctx.Err() != nil {
		return row, ctx.Err()
	}
	if res != nil && res.TaskRunID != 0 {
		id := res.TaskRunID
		row.TaskRunID = &id
	}
	if err != nil {
		row.Status, row.Error = TaskError, err.Error()
	} else {
		row.Scores = ScoreAsk(q, res)
	}
	row.Elapsed = time.Since(start)
	return row, a.raw.Write(ctx, func(w kb.Writer) error {
		return w.Tx(ctx, func() error {
			written, err := writeTaskRows(ctx, w, a.run.ID, row)
			if err != nil || !written {
				return err
			}
			return insertQuestion(ctx, w, a.run.ID, q)
		})
	})
}

// ask runs cra ask on q: over the home's knowledge base, or for a bug
// report over a scratch one at the fix's parent, so the answer cannot
// see the fix.
func (a *asker) ask(ctx context.Context, q Question) (*ask.Result, error) {
	o := ask.Options{Dir: a.opts.Home, Repo: q.Repo, Question: q.Text, Config: a.opts.Config, GraphOptions: a.opts.GraphOptions,
		TaskPrefix: AskTaskPrefix, Raw: a.raw, NewClient: a.opts.NewClient, SkipPreflight: true, Log: a.opts.Log}
	if a.opts.OracleClassify {
		o.Oracle = &ask.Classification{Mode: q.Mode, Reasoning: "the question's known mode (" + q.Kind + ")"}
	}
	if q.Rev != "" {
		if a.k == nil || a.k.repo != q.Repo {
			if a.k != nil {
				a.k.close()
			}
			a.kbs++
			a.k = &knowledge{dir: filepath.Join(a.scratch, fmt.Sprint(a.kbs)), repo: q.Repo,
				opts: ingest.Options{Jobs: 1, MaxFileBytes: a.opts.Config.Index.MaxFileBytes, CoChangeMaxFiles: a.opts.Config.Index.CoChangeMaxFiles}}
		}
		if err := a.k.at(ctx, q.Rev); err != nil {
			return nil, fmt.Errorf("the knowledge base at %.12s: %w", q.Rev, err)
		}
		o.Knowledge = a.k.store
	}
	if a.askRun != nil {
		return a.askRun(ctx, o)
	}
	return ask.Run(ctx, o)
}

// ignoreNoRows is err, or nil when it says no row was found.
func ignoreNoRows(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	return err
}
