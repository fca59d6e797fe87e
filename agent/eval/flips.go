package eval

import (
	"context"
	"slices"
	"sort"

	"github.com/cra-dev/cra/kb"
)

// Flip is a task whose verdict for a stage differs between two evals
// without an oracle: its `correct` (end to end: `success`) was right in
// one and wrong in the other.
type Flip struct {
	Stage  string `json:"stage"`
	Task   string `json:"task"`
	Repo   string `json:"repo"`
	Gained bool   `json:"gained"` // wrong in other, right in this
}

// Flips lists the tasks scored by both evals this and other whose stage
// verdict differs, by stage in pipeline order then task: what a paired
// difference is made of, for a reader to look at.
func Flips(ctx context.Context, q kb.Querier, this, other string) ([]Flip, error) {
	a, err := findRun(ctx, q, this, nil)
	if err != nil {
		return nil, err
	}
	b, err := findRun(ctx, q, other, nil)
	if err != nil {
		return nil, err
	}
	ra, err := results(ctx, q, a.ID)
	if err != nil {
		return nil, err
	}
	rb, err := results(ctx, q, b.ID)
	if err != nil {
		return nil, err
	}
	var out []Flip
	for task, x := range ra {
		y, ok := rb[task]
		if !ok {
			continue
		}
		for stage, ms := range x.scores {
			m := MetricCorrect
			if stage == StageEndToEnd {
				m = MetricSuccess
			}
			v, ok1 := ms[m]
			w, ok2 := y.scores[stage][m]
			if ok1 && ok2 && v != w {
				out = append(out, Flip{Stage: stage, Task: task, Repo: x.repo, Gained: v == 1})
			}
		}
	}
	order := append(slices.Clone(ScoredStages), StageEndToEnd)
	sort.Slice(out, func(i, j int) bool {
		if a, b := slices.Index(order, out[i].Stage), slices.Index(order, out[j].Stage); a != b {
			return a < b
		}
		return out[i].Task < out[j].Task
	})
	return out, nil
}
