package eval

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
)

// Splits an eval draws from: all of them held out from training.
const (
	SplitValidation = "validation"   // the validation split of repositories that are not held out
	SplitHoldout    = "holdout"      // every task of the held-out repositories
	SplitAll        = "all-held-out" // both
)

// Task is one synthetic task with its ground truth.
type Task struct {
	ID, Repo, Commit, Parent, Text string
	CommittedAt                    time.Time
	Truth                          prompt.Truth
}

// Selection says which held-out tasks an eval runs.
type Selection struct {
	Repos  []string // canonical paths; nil for every mined repository
	Split  string
	Rule   kb.SplitRule // curate-data's split rule: what it holds out, eval runs on
	Sample int          // 0: every task
	Seed   int64
}

// Select reads the held-out tasks of sel from the raw store, with their
// ground truth: a train-split task is never among them. A sample is drawn
// per repository in proportion to its held-out tasks (largest remainder),
// each repository's tasks ordered by a hash of the seed and the task id,
// so the same seed draws the same tasks. Tasks come back by repository
// and commit time, the order their knowledge bases move forward in.
func Select(ctx context.Context, raw *sql.DB, sel Selection) ([]Task, error) {
	switch sel.Split {
	case SplitValidation, SplitHoldout, SplitAll:
	default:
		return nil, usage.Errorf("--split %q: use validation, holdout or all-held-out", sel.Split)
	}
	mined, err := kb.SyntheticRepos(ctx, raw)
	if err != nil {
		return nil, err
	}
	if len(mined) == 0 {
		return nil, usage.Errorf("no synthetic tasks in this home: run `cra bootstrap <repo>` first")
	}
	for _, r := range sel.Repos {
		if !slices.Contains(mined, r) {
			return nil, usage.Errorf("--repos %s: not a mined repository (mined: %v)", r, mined)
		}
	}
	rule, err := sel.Rule.WithGroups(ctx, raw)
	if err != nil {
		return nil, err
	}
	byRepo := map[string][]Task{}
	var repos []string
	err = kb.EachTaskTruth(ctx, raw, func(k kb.TaskTruth) error {
		t := Task{ID: k.ID, Repo: k.Repo, Commit: k.Commit, Parent: k.Parent, Text: k.Task, CommittedAt: k.CommittedAt}
		if sel.Repos != nil && !slices.Contains(sel.Repos, t.Repo) || !heldOut(t, sel.Split, rule) {
			return nil
		}
		if err := json.Unmarshal([]byte(k.Targets), &t.Truth); err != nil {
			return fmt.Errorf("task %s: ground truth: %w", t.ID, err)
		}
		if _, ok := byRepo[t.Repo]; !ok {
			repos = append(repos, t.Repo)
		}
		byRepo[t.Repo] = append(byRepo[t.Repo], t)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return sample(repos, byRepo, sel), nil
}

// heldOut says whether t is in split by the rule curate-data splits by: a
// merged branch's task and its parts are held out together.
func heldOut(t Task, split string, rule kb.SplitRule) bool {
	holdout := rule.HeldOutRepo(t.Repo)
	switch split {
	case SplitHoldout:
		return holdout
	case SplitValidation:
		return !holdout && rule.Split(t.Repo, t.Commit) == kb.SplitValidation
	}
	return rule.Split(t.Repo, t.Commit) == kb.SplitValidation
}

// sample draws sel.Sample tasks stratified by repository.
func sample(repos []string, byRepo map[string][]Task, sel Selection) []Task {
	total := 0
	for _, r := range repos {
		total += len(byRepo[r])
	}
	take := map[string]int{}
	if sel.Sample <= 0 || sel.Sample >= total {
		for _, r := range repos {
			take[r] = len(byRepo[r])
		}
	} else {
		type rem struct {
			repo string
			frac float64
		}
		var rems []rem
		given := 0
		for _, r := range repos {
			exact := float64(sel.Sample) * float64(len(byRepo[r])) / float64(total)
			take[r] = int(math.Floor(exact))
			given += take[r]
			rems = append(rems, rem{r, exact - math.Floor(exact)})
		}
		sort.SliceStable(rems, func(i, j int) bool { return rems[i].frac > rems[j].frac })
		for i := 0; given < sel.Sample; i++ {
			take[rems[i%len(rems)].repo]++
			given++
		}
	}
	seed := fmt.Sprint(sel.Seed)
	var out []Task
	for _, r := range repos {
		ts := slices.Clone(byRepo[r])
		if take[r] < len(ts) {
			sort.SliceStable(ts, func(i, j int) bool { return kb.UnitHash(seed, ts[i].ID) < kb.UnitHash(seed, ts[j].ID) })
			ts = ts[:take[r]]
			sort.SliceStable(ts, func(i, j int) bool { return ts[i].CommittedAt.Before(ts[j].CommittedAt) })
		}
		out = append(out, ts...)
	}
	return out
}
