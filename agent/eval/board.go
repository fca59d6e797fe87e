package eval

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/cra-dev/cra/internal/stats"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
)

// Report is an eval's scoreboard.
type Report struct {
	Name   string   `json:"name"`
	RunID  int64    `json:"eval_run_id"`
	Oracle []string `json:"oracle"`
	Status string   `json:"status"`
	Tasks  int      `json:"tasks"`  // tasks with a row
	Scored int      `json:"scored"` // of them, runs that executed
	Errors int      `json:"errors"` // runs that could not execute
	// JudgedBy counts the scored tasks by how their end-to-end success was
	// judged: tests (fail-to-pass), reproduction, undecidable (no success
	// counted: their tests did not end in time).
	JudgedBy map[string]int `json:"judged_by"`
	// ModelSeconds is the time the model calls took, over every run.
	ModelSeconds float64      `json:"model_seconds"`
	Scores       []StageScore `json:"scores"`
	// Lift is end-to-end success against the same eval without an oracle,
	// on the tasks both ran: the oracle stages' causal lift.
	Lift *Comparison `json:"lift,omitempty"`
	// Compare is every rate against the eval --compare named.
	Compare *Comparison `json:"compare,omitempty"`
}

// StageScore is one metric of one stage over the eval's scored tasks:
// its mean with a 95 % interval. Rates get Wilson's; other means are the
// mean of repository means (one large repository cannot dominate) with a
// percentile bootstrap over repositories, or over tasks with fewer than
// stats.MinClusterRepos of them (stats.RepoMean). Method says which.
type StageScore struct {
	Stage    string         `json:"stage"`
	Metric   string         `json:"metric"`
	N        int            `json:"n"`
	Repos    int            `json:"repos"`
	Mean     float64        `json:"mean"`
	Interval stats.Interval `json:"interval"`
	Method   string         `json:"method"`
}

// Comparison is paired differences of rates between two evals on the
// tasks both scored.
type Comparison struct {
	Against string `json:"against"`
	Rows    []Diff `json:"rows"`
}

// Diff is this eval's rate minus the other's, with Newcombe's interval
// for paired proportions.
type Diff struct {
	Stage    string         `json:"stage"`
	Metric   string         `json:"metric"`
	N        int            `json:"n"`
	This     float64        `json:"this"`
	Other    float64        `json:"other"`
	Diff     float64        `json:"diff"`
	Interval stats.Interval `json:"interval"`
}

// rates are the metrics that are 0 or 1 per task.
var rates = []string{MetricCorrect, MetricSuccess, MetricReach, MetricReproduce, MetricTests, MetricParts}

// board builds the report of run from its rows.
func board(ctx context.Context, opts Options, raw *kb.Lease, run runRow) (*Report, error) {
	rep := &Report{Name: run.Name, RunID: run.ID, Oracle: run.Oracle}
	err := raw.Write(ctx, func(w kb.Writer) error {
		q := w.Conn
		var model sql.NullInt64
		if err := q.QueryRowContext(ctx, `SELECT (SELECT status FROM eval_runs WHERE id = ?), count(*), count(*) FILTER (WHERE status = 'scored'),
			count(*) FILTER (WHERE status = 'error'), sum(model_ms) FROM eval_tasks WHERE eval_run_id = ?`, run.ID, run.ID).
			Scan(&rep.Status, &rep.Tasks, &rep.Scored, &rep.Errors, &model); err != nil {
			return err
		}
		rep.ModelSeconds = float64(model.Int64) / 1000
		var err error
		if rep.JudgedBy, err = judgedBy(ctx, q, run.ID); err != nil {
			return err
		}
		res, err := results(ctx, q, run.ID)
		if err != nil {
			return err
		}
		rep.Scores = scoreboard(res, opts.Stages)
		if len(run.Oracle) > 0 {
			if base, err := findRun(ctx, q, run.Name, nil); err == nil {
				other, err := results(ctx, q, base.ID)
				if err != nil {
					return err
				}
				rep.Lift = compare(res, other, fmt.Sprintf("%s without an oracle", run.Name), []string{StageEndToEnd})
			} else if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		if opts.Compare != "" {
			base, err := findRun(ctx, q, opts.Compare, run.Oracle)
			if errors.Is(err, sql.ErrNoRows) {
				return usage.Errorf("--compare %s: no eval of that name with oracle %v (see `cra sql \"select name, oracle from eval_runs\"`)", opts.Compare, run.Oracle)
			}
			if err != nil {
				return err
			}
			other, err := results(ctx, q, base.ID)
			if err != nil {
				return err
			}
			rep.Compare = compare(res, other, opts.Compare, nil)
		}
		return nil
	})
	return rep, err
}

// judgedBy counts run's scored tasks by how they were judged.
func judgedBy(ctx context.Context, q kb.Querier, runID int64) (map[string]int, error) {
	rows, err := q.QueryContext(ctx, `SELECT judged_by, count(*) FROM eval_tasks
		WHERE eval_run_id = ? AND status = 'scored' AND judged_by IS NOT NULL GROUP BY 1`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var by string
		var n int
		if err := rows.Scan(&by, &n); err != nil {
			return nil, err
		}
		out[by] = n
	}
	return out, rows.Err()
}

// result is one task's scores: stage → metric → value, and its repository.
type result struct {
	repo   string
	scores map[string]map[string]float64
}

func results(ctx context.Context, q kb.Querier, runID int64) (map[string]*result, error) {
	rows, err := q.QueryContext(ctx, `SELECT r.task_id, t.repo_path, r.stage, r.metric, r.value FROM eval_results r
		JOIN eval_tasks t ON t.eval_run_id = r.eval_run_id AND t.task_id = r.task_id WHERE r.eval_run_id = ?`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]*result{}
	for rows.Next() {
		var task, repo, stage, metric string
		var v float64
		if err := rows.Scan(&task, &repo, &stage, &metric, &v); err != nil {
			return nil, err
		}
		r := out[task]
		if r == nil {
			r = &result{repo: repo, scores: map[string]map[string]float64{}}
			out[task] = r
		}
		if r.scores[stage] == nil {
			r.scores[stage] = map[string]float64{}
		}
		r.scores[stage][metric] = v
	}
	return out, rows.Err()
}

// scoreboard summarises every (stage, metric) over the tasks that have it.
func scoreboard(res map[string]*result, stages []string) []StageScore {
	type key struct{ stage, metric string }
	groups := map[key]map[string][]float64{}
	for _, r := range res {
		for stage, ms := range r.scores {
			if len(stages) > 0 && !slices.Contains(stages, stage) && stage != StageEndToEnd {
				continue
			}
			for m, v := range ms {
				k := key{stage, m}
				if groups[k] == nil {
					groups[k] = map[string][]float64{}
				}
				groups[k][r.repo] = append(groups[k][r.repo], v)
			}
		}
	}
	order := append(slices.Clone(ScoredStages), StageEndToEnd)
	var out []StageScore
	for k, byRepo := range groups {
		s := StageScore{Stage: k.stage, Metric: k.metric, Repos: len(byRepo)}
		var all [][]float64
		ones := 0
		for _, repo := range sortedKeys(byRepo) {
			all = append(all, byRepo[repo])
			for _, v := range byRepo[repo] {
				s.N++
				if v == 1 {
					ones++
				}
			}
		}
		if slices.Contains(rates, k.metric) {
			s.Mean, s.Interval, s.Method = float64(ones)/float64(s.N), stats.Wilson(ones, s.N), stats.MethodWilson
		} else {
			s.Mean, s.Interval, s.Method = stats.RepoMean(all, stats.BootstrapReps, stats.BootstrapSeed)
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := slices.Index(order, out[i].Stage), slices.Index(order, out[j].Stage)
		if a != b {
			return a < b
		}
		return metricOrder(out[i].Metric) < metricOrder(out[j].Metric)
	})
	return out
}

// metricOrder puts a stage's correct rate first, then its metrics by name.
func metricOrder(m string) string {
	if m == MetricCorrect || m == MetricSuccess {
		return ""
	}
	return m
}

// compare pairs the rates of two evals task by task (stages nil: every
// rate both have).
func compare(this, other map[string]*result, against string, stages []string) *Comparison {
	type key struct{ stage, metric string }
	type cell struct{ both, only1, only2, neither int }
	cells := map[key]*cell{}
	for task, a := range this {
		b, ok := other[task]
		if !ok {
			continue
		}
		for stage, ms := range a.scores {
			if stages != nil && !slices.Contains(stages, stage) {
				continue
			}
			for m, x := range ms {
				y, ok := b.scores[stage][m]
				if !ok || !slices.Contains(rates, m) {
					continue
				}
				k := key{stage, m}
				if cells[k] == nil {
					cells[k] = &cell{}
				}
				c := cells[k]
				switch {
				case x == 1 && y == 1:
					c.both++
				case x == 1:
					c.only1++
				case y == 1:
					c.only2++
				default:
					c.neither++
				}
			}
		}
	}
	out := &Comparison{Against: against}
	order := append(slices.Clone(ScoredStages), StageEndToEnd)
	for k, c := range cells {
		n := c.both + c.only1 + c.only2 + c.neither
		d, iv := stats.PairedDifference(c.both, c.only1, c.only2, c.neither)
		out.Rows = append(out.Rows, Diff{Stage: k.stage, Metric: k.metric, N: n, This: float64(c.both+c.only1) / float64(n),
			Other: float64(c.both+c.only2) / float64(n), Diff: d, Interval: iv})
	}
	sort.Slice(out.Rows, func(i, j int) bool {
		a, b := slices.Index(order, out.Rows[i].Stage), slices.Index(order, out.Rows[j].Stage)
		if a != b {
			return a < b
		}
		return metricOrder(out.Rows[i].Metric) < metricOrder(out.Rows[j].Metric)
	})
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
