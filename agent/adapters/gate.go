package adapters

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cra-dev/cra/agent/eval"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/stats"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
)

// GateOptions is `cra adapters eval`.
type GateOptions struct {
	Store
	Adapter string // NAME or NAME@V
	// Eval is what both evals run with: its Config is the current routing
	// (config.toml with the registry's champions, what the baseline runs
	// with) and its Selection the tasks; the gate sets Home, Name, Compare
	// and the candidate's champions.
	Eval eval.Options
}

// GateResult is a gate's verdict with what it was judged on.
type GateResult struct {
	Gate kb.GateRow `json:"gate"`
	// Lineage is the dataset the adapter was trained on (NAME@V), "" when
	// it was registered without one: then nothing showed that the tasks
	// were not trained on.
	Lineage string `json:"lineage"`
	Tasks   int    `json:"tasks"` // tasks selected
	// Diffs are the paired differences candidate − baseline of each
	// stage's `correct` and end-to-end `success`.
	Diffs     []eval.Diff  `json:"diffs"`
	Flips     []eval.Flip  `json:"flips"`
	Baseline  *eval.Report `json:"baseline"`
	Candidate *eval.Report `json:"candidate"`
	// Reused: a run of the same two evals had recorded this verdict
	// already (a re-run after the evals finished adds no row).
	Reused bool `json:"reused"`
}

// GateFailedError is a gate that ran and failed: the command did what it
// was asked, the adapter is not better (exit 1).
type GateFailedError struct {
	Adapter string
	Gate    kb.GateRow
}

func (e *GateFailedError) Error() string {
	var failed []string
	for _, c := range e.Gate.Conditions {
		if !c.Passed {
			failed = append(failed, c.Name+" "+Figures(c.Figures))
		}
	}
	return fmt.Sprintf("gate %d: %s failed: %s (report: %s)", e.Gate.ID, e.Adapter, strings.Join(failed, "; "),
		filepath.Join(e.Gate.ReportDir, "report.md"))
}

// Condition names of a verdict; a stage's conditions end in ":STAGE".
const (
	CondTargetImproves = "target_stage_improves"
	CondEndToEnd       = "end_to_end_within_max_regression"
	CondNoOtherFalls   = "no_significant_fall"
)

// Gate evaluates an adapter version against the current routing on the
// same held-out tasks: eval's run of them with the routing as it is (the
// baseline) and with the adapter as its stages' champion (the
// candidate), as two named evals, so a re-run resumes both; then the
// verdict (judge), recorded with the champions judged against, and the
// reports. A failed verdict is a *GateFailedError.
func Gate(ctx context.Context, opts GateOptions) (*GateResult, error) {
	pre, err := preflight(ctx, opts)
	if err != nil {
		return nil, err
	}
	a := pre.adapter
	res := &GateResult{Lineage: pre.lineage, Tasks: len(pre.tasks)}
	base, cand := evalNames(a, pre.judged, pre.tasks)
	eo := opts.Eval
	eo.Home, eo.Name = opts.Home, base
	if res.Baseline, err = eval.Run(ctx, eo); err != nil {
		return nil, fmt.Errorf("the baseline eval %s: %w", base, err)
	}
	eo.Name, eo.Compare, eo.Config = cand, base, withCandidate(opts.Eval.Config, a)
	if res.Candidate, err = eval.Run(ctx, eo); err != nil {
		return nil, fmt.Errorf("the candidate eval %s: %w", cand, err)
	}
	res.Diffs = gateDiffs(res.Candidate.Compare)
	g := kb.GateRow{Adapter: a.Name, Version: a.Version, Stages: a.Stages, BaselineEval: base, CandidateEval: cand,
		Champions: pre.judged, Conditions: judge(res.Diffs, a.Stages, opts.Eval.Config.Adapters.MaxRegression)}
	g.Passed = allPassed(g.Conditions)
	// The evals are done: the verdict and its reports are written even
	// if an interrupt comes now.
	ctx = context.WithoutCancel(ctx)
	err = withWriter(ctx, opts.Store, func(w kb.Writer) error {
		if res.Flips, err = eval.Flips(ctx, w.Conn, cand, base); err != nil {
			return err
		}
		if res.Gate, res.Reused, err = recordGate(ctx, w, g); err != nil {
			return err
		}
		dir := filepath.Join(opts.Home, "adapters", a.Name+"-v"+fmt.Sprint(a.Version), fmt.Sprintf("gate-%d", res.Gate.ID))
		res.Gate.ReportDir = dir
		if err := writeGateReport(dir, a, res); err != nil {
			return err
		}
		return kb.SetAdapterGateReport(ctx, w, res.Gate.ID, dir)
	})
	if err != nil {
		return nil, err
	}
	if !res.Gate.Passed {
		return res, &GateFailedError{Adapter: a.Ref(), Gate: res.Gate}
	}
	return res, nil
}

// gatePreflight is what the gate checked before running anything.
type gatePreflight struct {
	adapter kb.AdapterRow
	judged  map[string]string // stage → champion judged against ("" none)
	tasks   []eval.Task
	lineage string
}

// preflight finds the adapter, the champions it is judged against and
// the held-out tasks, and refuses (usage) an adapter that could not be
// asked (an override holds its stage, or it is the champion already) or
// whose dataset's train split holds a selected task.
func preflight(ctx context.Context, opts GateOptions) (gatePreflight, error) {
	var pre gatePreflight
	ro := opts.Open
	ro.Write = false
	raw, err := kb.Open(ctx, opts.Home, kb.Raw, ro)
	if err != nil {
		return pre, err
	}
	defer raw.Close()
	reg, err := ReadRegistry(ctx, raw.DB)
	if err != nil {
		return pre, err
	}
	if pre.adapter, err = reg.Find(opts.Adapter); err != nil {
		return pre, err
	}
	a := pre.adapter
	champions := reg.Champions()
	pre.judged = map[string]string{}
	for _, s := range a.Stages {
		if m := opts.Eval.Config.Models.Overrides[s]; m != "" {
			return pre, usage.Errorf("stage %s is routed to %s by [models.overrides], which wins over any adapter: remove it from config.toml to gate %s",
				s, m, a.Ref())
		}
		if champions[s] == a.Ref() {
			return pre, usage.Errorf("%s is the champion of %s already: gate a candidate against it, or `cra adapters rollback %s` first", a.Ref(), s, s)
		}
		pre.judged[s] = champions[s]
	}
	if pre.tasks, err = eval.Select(ctx, raw.DB, opts.Eval.Selection); err != nil {
		return pre, err
	}
	if len(pre.tasks) == 0 {
		return pre, usage.Errorf("no held-out task in the %s split: widen --split, or mine more history", opts.Eval.Selection.Split)
	}
	if a.Dataset == "" {
		return pre, nil
	}
	pre.lineage = fmt.Sprintf("%s@%d", a.Dataset, a.DatasetVersion)
	keys, err := kb.TrainSplitKeys(ctx, raw.DB, a.Dataset, a.DatasetVersion)
	if err != nil {
		return pre, err
	}
	if leaked := trainedOn(pre.tasks, keys); len(leaked) > 0 {
		return pre, leakError(a, pre.lineage, leaked)
	}
	return pre, nil
}

// trainedOn are the tasks a train-split row came from: by task id where
// the row carries one, else by repository and commit.
func trainedOn(tasks []eval.Task, keys []kb.TrainKey) []eval.Task {
	ids, commits := map[string]bool{}, map[string]bool{}
	for _, k := range keys {
		if k.TaskID != "" {
			ids[k.TaskID] = true
		}
		if k.Commit != "" {
			commits[k.Repo+"\x00"+k.Commit] = true
		}
	}
	var out []eval.Task
	for _, t := range tasks {
		if ids[t.ID] || commits[t.Repo+"\x00"+t.Commit] {
			out = append(out, t)
		}
	}
	return out
}

func leakError(a kb.AdapterRow, lineage string, leaked []eval.Task) error {
	var names []string
	for _, t := range leaked[:min(10, len(leaked))] {
		names = append(names, fmt.Sprintf("%s (%s at %.12s)", t.ID, t.Repo, t.Commit))
	}
	more := ""
	if len(leaked) > 10 {
		more = fmt.Sprintf(" and %d more", len(leaked)-10)
	}
	return usage.Errorf("%s was trained on %s, whose train split holds %d of the selected held-out tasks: %s%s; "+
		"an eval on tasks it learned proves nothing: gate it on another --split, or retrain on a dataset curated with the eval's split",
		a.Ref(), lineage, len(leaked), strings.Join(names, ", "), more)
}

// evalNames are the two evals' names: the adapter version, then a hash of
// its weights, the champions it is judged against and the tasks, so the
// same gate asked again resumes the same evals, and a gate against other
// champions or on other tasks runs its own.
func evalNames(a kb.AdapterRow, judged map[string]string, tasks []eval.Task) (base, cand string) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", a.Ref(), a.SHA256)
	for _, s := range slices.Sorted(maps.Keys(judged)) {
		fmt.Fprintf(h, "%s=%s\x00", s, judged[s])
	}
	for _, t := range tasks {
		fmt.Fprintf(h, "%s\x00", t.ID)
	}
	sum := hex.EncodeToString(h.Sum(nil))[:8]
	prefix := fmt.Sprintf("%s%s-v%d", kb.GateEvalPrefix, a.Name, a.Version)
	return prefix + "-base-" + sum, prefix + "-cand-" + sum
}

// withCandidate is cfg with a as the champion of each of its stages.
func withCandidate(cfg config.Config, a kb.AdapterRow) config.Config {
	champions := maps.Clone(cfg.Models.Champions)
	if champions == nil {
		champions = map[string]config.Adapter{}
	}
	for _, s := range a.Stages {
		champions[s] = config.Adapter{Name: a.Name, Version: a.Version, SHA256: a.SHA256, Path: a.Path}
	}
	cfg.Models.Champions = champions
	return cfg
}

// gateDiffs are the rows of c the gate judges: each stage's `correct`
// and end-to-end `success`.
func gateDiffs(c *eval.Comparison) []eval.Diff {
	if c == nil {
		return nil
	}
	var out []eval.Diff
	for _, d := range c.Rows {
		if d.Metric == eval.MetricCorrect && d.Stage != eval.StageEndToEnd || d.Stage == eval.StageEndToEnd && d.Metric == eval.MetricSuccess {
			out = append(out, d)
		}
	}
	return out
}

// judge is the gate's rule over the paired differences candidate −
// baseline (95 % Newcombe intervals, eval's Compare): each target
// stage's `correct` improves (the interval's lower bound above 0); end-to-
// end success does not fall by more than maxRegression (lower bound at
// least −maxRegression); no other stage falls significantly (upper bound
// below 0). A target stage or end to end without paired tasks fails: no
// evidence is not an improvement.
func judge(diffs []eval.Diff, targets []string, maxRegression float64) []kb.GateCondition {
	byStage := map[string]eval.Diff{}
	for _, d := range diffs {
		byStage[d.Stage] = d
	}
	var out []kb.GateCondition
	for _, s := range sortedStages(targets) {
		d, ok := byStage[s]
		out = append(out, condition(CondTargetImproves+":"+s, d, ok && d.Interval.Lo > 0, 0))
	}
	e2e, ok := byStage[eval.StageEndToEnd]
	out = append(out, condition(CondEndToEnd, e2e, ok && e2e.Interval.Lo >= -maxRegression, -maxRegression))
	for _, s := range eval.ScoredStages {
		d, ok := byStage[s]
		if !ok || slices.Contains(targets, s) {
			continue
		}
		out = append(out, condition(CondNoOtherFalls+":"+s, d, d.Interval.Hi >= 0, 0))
	}
	return out
}

// condition is one condition with its figures: the paired tasks, each
// side's right answers, the difference, its interval and the bound.
func condition(name string, d eval.Diff, passed bool, bound float64) kb.GateCondition {
	f := map[string]float64{"n": float64(d.N), "bound": bound}
	if d.N > 0 {
		f["k_candidate"], f["k_baseline"] = float64(countOf(d.This, d.N)), float64(countOf(d.Other, d.N))
		f["diff"], f["low"], f["high"] = stats.Round4(d.Diff), stats.Round4(d.Interval.Lo), stats.Round4(d.Interval.Hi)
	}
	return kb.GateCondition{Name: name, Passed: passed, Figures: f}
}

func countOf(rate float64, n int) int { return int(rate*float64(n) + 0.5) }

func allPassed(cs []kb.GateCondition) bool {
	for _, c := range cs {
		if !c.Passed {
			return false
		}
	}
	return true
}

// sortedStages is stages in pipeline order.
func sortedStages(stages []string) []string {
	out := slices.Clone(stages)
	sort.SliceStable(out, func(i, j int) bool {
		return slices.Index(eval.ScoredStages, out[i]) < slices.Index(eval.ScoredStages, out[j])
	})
	return out
}

// recordGate records g, unless the adapter's latest verdict is the same
// judgement of the same two evals (a re-run after they finished): then
// that one stands and no row is added.
func recordGate(ctx context.Context, w kb.Writer, g kb.GateRow) (kb.GateRow, bool, error) {
	latest, err := kb.LatestAdapterGates(ctx, w.Conn)
	if err != nil {
		return g, false, err
	}
	if l, ok := latest[fmt.Sprintf("%s@%d", g.Adapter, g.Version)]; ok && sameVerdict(l, g) {
		return l, true, nil
	}
	g.ID, err = kb.InsertAdapterGate(ctx, w.Conn, g)
	g.Created = time.Now().UTC().Format("2006-01-02T15:04:05Z")
	return g, false, err
}

func sameVerdict(a, b kb.GateRow) bool {
	ja, _ := json.Marshal([]any{a.BaselineEval, a.CandidateEval, a.Champions, a.Passed, a.Conditions})
	jb, _ := json.Marshal([]any{b.BaselineEval, b.CandidateEval, b.Champions, b.Passed, b.Conditions})
	return string(ja) == string(jb)
}
