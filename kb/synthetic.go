package kb

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cra-dev/cra/kb/schema"
)

// SyntheticTask is one qualifying commit: the task it stands for and where it
// comes from (raw.synthetic_tasks).
type SyntheticTask struct {
	ID           string    `json:"id"`
	RunID        int64     `json:"run_id"`
	RepoPath     string    `json:"repo_path"`
	Commit       string    `json:"commit"`
	Parent       string    `json:"parent"`
	Author       string    `json:"author"`
	CommittedAt  time.Time `json:"committed_at"`
	Message      string    `json:"message"`
	Task         string    `json:"task"`
	FilesChanged int       `json:"files_changed"`
	Insertions   int       `json:"insertions"`
	Deletions    int       `json:"deletions"`
}

// SyntheticRepos are the repositories bootstrap mined a synthetic task
// of, in path order.
func SyntheticRepos(ctx context.Context, q Querier) ([]string, error) {
	repos, err := queryList(ctx, q, func(s *string) []any { return []any{s} },
		`SELECT DISTINCT repo_path FROM synthetic_tasks ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("read the mined repositories: %w", err)
	}
	return repos, nil
}

// TaskTruth is a synthetic task with its ground truth: Targets is one JSON
// object of every stage's target (stage → target).
type TaskTruth struct {
	ID, Repo, Commit, Parent, Task string
	CommittedAt                    time.Time
	Targets                        string
}

// EachTaskTruth hands fn every synthetic task with its ground truth, by
// repository, commit time and id.
func EachTaskTruth(ctx context.Context, q Querier, fn func(TaskTruth) error) error {
	rows, err := q.QueryContext(ctx, `SELECT k.id, k.repo_path, k.commit, k.parent, k.task, k.committed_at,
		json_group_object(t.stage, t.target)::VARCHAR
		FROM synthetic_tasks k JOIN synthetic_targets t ON t.task_id = k.id
		GROUP BY ALL ORDER BY k.repo_path, k.committed_at, k.id`)
	if err != nil {
		return fmt.Errorf("select eval tasks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t TaskTruth
		if err := rows.Scan(&t.ID, &t.Repo, &t.Commit, &t.Parent, &t.Task, &t.CommittedAt, &t.Targets); err != nil {
			return err
		}
		if err := fn(t); err != nil {
			return err
		}
	}
	return rows.Err()
}

// TruthsOf is the ground truth of each of tasks (synthetic task ids): task
// id → one JSON object of every stage's target.
func TruthsOf(ctx context.Context, q Querier, tasks []string) (map[string]string, error) {
	type truth struct{ id, targets string }
	rows, err := queryList(ctx, q, func(t *truth) []any { return []any{&t.id, &t.targets} },
		`SELECT task_id, json_group_object(stage, target)::VARCHAR FROM synthetic_targets
		WHERE task_id IN (SELECT unnest(?::VARCHAR[])) GROUP BY 1`, tasks)
	if err != nil {
		return nil, fmt.Errorf("read the ground truth of %d tasks: %w", len(tasks), err)
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		out[r.id] = r.targets
	}
	return out, nil
}

// RepoSources says which sources of training data KnownRepos looks in.
type RepoSources struct {
	Synthetic bool // synthetic tasks
	Logged    bool // solve runs (a --plan run's mode is implement)
	Distilled bool // verified distilled answers
}

// KnownRepos are the repositories the sources of src hold anything of,
// in path order.
func KnownRepos(ctx context.Context, q Querier, src RepoSources) ([]string, error) {
	var parts []string
	var args []any
	if src.Synthetic {
		parts = append(parts, `SELECT repo_path FROM synthetic_tasks`)
	}
	if src.Logged {
		parts = append(parts, `SELECT repo_path FROM task_runs WHERE mode IN ('solve', ?)`) // a --plan run's mode is implement
		args = append(args, schema.StageImplement)
	}
	if src.Distilled {
		parts = append(parts, `SELECT repo_path FROM distill_outcomes WHERE verified`)
	}
	return queryList(ctx, q, func(s *string) []any { return []any{s} },
		`SELECT DISTINCT repo_path FROM (`+strings.Join(parts, " UNION ALL ")+`) ORDER BY 1`, args...)
}
