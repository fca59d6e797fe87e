package analysis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/internal/version"
	"github.com/cra-dev/cra/kb"
)

// Options configure one `cra train-plan` run.
type Options struct {
	Dir    string // the home
	Filter kb.LogFilter
	// Out is the directory written; "" means exports/train-plan-<time>
	// in the home. It must be new or empty.
	Out string
	// NoLLM leaves the narrative out: the report holds computed figures only.
	NoLLM  bool
	Config config.Config
	// Routes is each stage's champion now (stage → adapter; a stage
	// absent is the base model's), as the command's router routes it:
	// the evidence pools only what these routes answered (adapters.go).
	Routes map[string]config.Adapter
	// NewClient builds the narrative's model client; nil means llm.New.
	NewClient func(llm.ModelConfig) (llm.Client, error)
	Log       *slog.Logger
	// Now, TaskID and Version are the run's time, id and cra version;
	// tests fix them so that reports are byte for byte the same.
	Now     func() time.Time
	TaskID  string
	Version string
}

// Result is what a run found and wrote.
type Result struct {
	Status   string    `json:"status"`
	TaskID   string    `json:"task_id,omitempty"`
	Decision Decision  `json:"decision"`
	PlanID   int64     `json:"plan_id,omitempty"`
	OutDir   string    `json:"out_dir,omitempty"`
	Files    []string  `json:"files,omitempty"`
	Evidence *Evidence `json:"evidence,omitempty"`
	Plan     *Plan     `json:"-"`
	Report   *Report   `json:"-"`
}

// Files a run writes in its directory.
const (
	PlanFile       = "plan.json"
	ReportMarkdown = "report.md"
	ReportHTML     = "report.html"
)

// Run reads the raw store, analyses it and writes the plan and reports.
// With no evidence at all it writes nothing and says to run `cra eval`;
// with evidence but no target it writes the reports, no plan and no
// training_plans row.
func Run(ctx context.Context, opts Options) (*Result, error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	now := time.Now().UTC()
	if opts.Now != nil {
		now = opts.Now().UTC()
	}
	if opts.Version == "" {
		opts.Version = version.String()
	}
	in, data, split, err := read(ctx, opts)
	if err != nil {
		return nil, err
	}
	e := Analyze(in)
	d := Decide(e)
	res := &Result{Status: d.Status, Decision: d}
	if e.Observations == 0 && len(e.Lifts) == 0 && e.Solve == nil {
		return res, nil // nothing to report: the decision says to run cra eval
	}
	res.Evidence = e
	out := opts.Out
	if out == "" {
		out = filepath.Join(opts.Dir, "exports", "train-plan-"+now.Format("20060102T150405Z"))
	}
	if err := checkOut(out); err != nil {
		return nil, err
	}
	res.TaskID = opts.TaskID
	if res.TaskID == "" {
		res.TaskID = newTaskID(now)
	}
	if d.Status == StatusPlan {
		res.Plan = BuildPlan(e, d, data, split, opts.Filter.Repos)
		res.Plan.TaskID, res.Plan.CreatedAt, res.Plan.CraVersion = res.TaskID, now, opts.Version
	}
	rep := &Report{TaskID: res.TaskID, CreatedAt: now, Version: opts.Version, Filter: opts.Filter,
		Evidence: e, Decision: d, Plan: res.Plan}
	if err := record(ctx, opts, res, rep); err != nil {
		return nil, err
	}
	res.Report, res.OutDir = rep, out
	if res.Files, err = write(out, res, rep); err != nil {
		return nil, err
	}
	return res, nil
}

// read takes what the analysis needs from the stores, checking the
// filter's names against what exists; data is counted under the split a
// plan would hold out (planSplit).
func read(ctx context.Context, opts Options) (in Input, data map[string]kb.StageData, split PlanSplit, err error) {
	a, err := kb.AttachWith(ctx, opts.Dir, kb.Options{Command: "cra train-plan", Wait: kb.BatchWait})
	if err != nil {
		return in, nil, split, err
	}
	defer a.Close()
	la := kb.NewLogAnalysis(a.Conn)
	if err := checkFilter(ctx, la, opts.Filter); err != nil {
		return in, nil, split, err
	}
	if in.Runs, err = la.EvalRuns(ctx, opts.Filter); err != nil {
		return in, nil, split, err
	}
	if in.Outcomes, err = la.EvalOutcomes(ctx, opts.Filter); err != nil {
		return in, nil, split, err
	}
	if in.Gates, err = latestGates(ctx, la); err != nil {
		return in, nil, split, err
	}
	if in.AskEvals, err = la.AskEvals(ctx, opts.Filter); err != nil {
		return in, nil, split, err
	}
	in.Routes, in.NamedEvals = map[string]string{}, len(opts.Filter.Evals) > 0
	for stage, ad := range opts.Routes {
		in.Routes[stage] = ad.String()
	}
	if len(opts.Filter.Evals) == 0 { // solve runs have no eval name
		if in.Solve, err = la.SolveRuns(ctx, opts.Filter); err != nil {
			return in, nil, split, err
		}
	}
	evaluated, err := la.EvaluatedTasks(ctx)
	if err != nil {
		return in, nil, split, err
	}
	configured, err := kb.NewSplitRule(opts.Config.Curate, nil).WithGroups(ctx, a.Conn)
	if err != nil {
		return in, nil, split, err
	}
	split = planSplit(configured, evaluated)
	data, err = la.DataAvailable(ctx, opts.Filter, split.Rule)
	return in, data, split, err
}

// latestGates is the latest gate verdict of every adapter version.
func latestGates(ctx context.Context, la *kb.LogAnalysis) ([]kb.GateRow, error) {
	byRef, err := la.LatestGates(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]kb.GateRow, 0, len(byRef))
	for _, ref := range sortedKeys(byRef) {
		out = append(out, byRef[ref])
	}
	return out, nil
}

func checkFilter(ctx context.Context, la *kb.LogAnalysis, f kb.LogFilter) error {
	if len(f.Evals) > 0 {
		names, err := la.EvalNames(ctx)
		if err != nil {
			return err
		}
		asks, err := la.AskEvalNames(ctx)
		if err != nil {
			return err
		}
		for _, n := range f.Evals {
			if slices.Contains(asks, n) {
				return usage.Errorf("--eval %s: that is a cra ask --eval run, whose scores are not pipeline stages train-plan attributes "+
					"failures to; see them with `cra ask --eval --name %s`, and name a cra eval run here", n, n)
			}
			if !slices.Contains(names, n) {
				if len(names) == 0 {
					return usage.Errorf("--eval %s: the raw store has no eval runs yet: run `cra eval` first", n)
				}
				return usage.Errorf("--eval %s: no eval run of that name; the eval runs are:\n  %s", n, strings.Join(names, "\n  "))
			}
		}
	}
	if len(f.Repos) > 0 {
		known, err := la.KnownRepos(ctx)
		if err != nil {
			return err
		}
		for _, r := range f.Repos {
			if !slices.Contains(known, r) {
				if len(known) == 0 {
					return usage.Errorf("--repos %s: no eval task or solve run is logged for any repository yet: run `cra eval` first", r)
				}
				return usage.Errorf("--repos %s: no eval task or solve run on it; the repositories logged are:\n  %s", r, strings.Join(known, "\n  "))
			}
		}
	}
	return nil
}

// checkOut refuses a directory with files in it: a report never mixes
// with another run's.
func checkOut(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return usage.Errorf("--out %s: %v", dir, err)
	}
	if len(entries) > 0 {
		return usage.Errorf("--out %s is not empty: give a new or empty directory", dir)
	}
	return nil
}

// record writes the run's task_runs row (mode train_plan), its narrative
// call (logged like every model call) and, with a target, the
// training_plans row whose id plan.json names.
func record(ctx context.Context, opts Options, res *Result, rep *Report) error {
	model, client, note := narrativeClient(opts, res.Status)
	rep.NarrativeNote = note
	started := time.Now().UTC()
	run := kb.TaskRun{TaskID: res.TaskID, Mode: kb.ModeTrainPlan, ExecuteModel: "none", Stages: []string{"log_analysis"}, Started: started}
	if client != nil {
		run.ExecuteModel, run.Stages = model.Model, []string{"log_analysis", "narrative"}
	}
	w := kb.Options{Command: "cra train-plan", Wait: kb.BatchWait}
	if err := kb.WithWriter(ctx, opts.Dir, kb.Raw, w, func(w kb.Writer) error {
		_, err := kb.BeginTaskRun(ctx, w.Conn, run)
		return err
	}); err != nil {
		return err
	}
	var tokens int64
	if client != nil {
		rep.Narrative, rep.NarrativeNote = narrate(ctx, client, model.Model, res.TaskID, rep)
		if rep.Narrative == nil {
			opts.Log.Warn("the report has no narrative", "why", rep.NarrativeNote)
		}
		tokens = client.Tokens()
		if err := client.Close(); err != nil {
			return fmt.Errorf("log the narrative call: %w", err)
		}
	}
	bg := context.WithoutCancel(ctx)
	return kb.WithWriter(bg, opts.Dir, kb.Raw, w, func(w kb.Writer) error {
		return w.Tx(bg, func() error {
			end := kb.TaskRunEnd{Success: true, TotalTokens: tokens, TotalLatency: time.Since(started)}
			if res.Plan != nil {
				id, err := kb.NextTrainingPlanID(bg, w.Conn)
				if err != nil {
					return err
				}
				res.Plan.PlanID, res.PlanID = id, id
				row, err := planRow(res.Plan)
				if err != nil {
					return err
				}
				if err := kb.InsertTrainingPlan(bg, w.Conn, row); err != nil {
					return err
				}
				end.FinalPlan = res.Plan
			}
			return kb.FinishTaskRun(bg, w.Conn, res.TaskID, end)
		})
	})
}

func planRow(p *Plan) (kb.TrainingPlanRow, error) {
	row := kb.TrainingPlanRow{ID: p.PlanID, TaskID: p.TaskID, TargetStage: p.TargetStage, BaseModel: p.BaseModel,
		Source: p.DataSource.Source, At: p.CreatedAt}
	for dst, v := range map[*string]any{&row.DataCriteria: p.DataCriteria, &row.Hyperparameters: p.Hyperparameters,
		&row.ImprovementTargets: p.ImprovementTargets, &row.RawPlan: p} {
		b, err := json.Marshal(v)
		if err != nil {
			return row, fmt.Errorf("training plan: %w", err)
		}
		*dst = string(b)
	}
	return row, nil
}

// write puts plan.json (with a target), report.md and report.html in dir.
func write(dir string, res *Result, rep *Report) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	files := map[string][]byte{ReportMarkdown: []byte(Markdown(rep))}
	html, err := HTML(rep)
	if err != nil {
		return nil, err
	}
	files[ReportHTML] = html
	if res.Plan != nil {
		b, err := json.MarshalIndent(res.Plan, "", "  ")
		if err != nil {
			return nil, err
		}
		files[PlanFile] = append(b, '\n')
	}
	var written []string
	for _, name := range sortedKeys(files) {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return written, fmt.Errorf("write %s: %w", path, err)
		}
		written = append(written, path)
	}
	return written, nil
}

func newTaskID(now time.Time) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("train_plan-%s-%s", now.Format("20060102T150405"), hex.EncodeToString(b))
}
