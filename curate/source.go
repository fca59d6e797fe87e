package curate

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/cra-dev/cra/kb"
)

// taskWindow and windowBytes bound one query of eachTask: the driver
// materialises a query's whole result, so targets are read a window of
// tasks at a time — at most taskWindow tasks, and about windowBytes of
// target text (a window ends after the task that crosses it) — and memory
// stays flat however many tasks there are and however large their files.
const (
	taskWindow  = 2000
	windowBytes = 16 << 20
)

// eachTask streams the synthetic tasks of the selected repositories, each
// with all its targets, in task id order (both passes see the same order).
func eachTask(ctx context.Context, conn *sql.Conn, opts Options, fn func(*Task) error) error {
	return eachTaskOf(ctx, conn, kb.TaskFilter{Repos: opts.Repos}, fn)
}

// SyntheticTaskIDs are the ids of the synthetic tasks of repos (all
// repositories when empty), in id order. Repositories the raw store has
// nothing of, or a store with no synthetic task, are a usage error, as in
// curate-data.
func SyntheticTaskIDs(ctx context.Context, conn *sql.Conn, repos []string) ([]string, error) {
	if err := checkRepos(ctx, conn, Options{Repos: repos}); err != nil {
		return nil, err
	}
	return kb.SyntheticTaskIDs(ctx, conn, repos)
}

// EachTaskOf hands fn each synthetic task of ids, with its targets, in id
// order, a window at a time.
func EachTaskOf(ctx context.Context, conn *sql.Conn, ids []string, fn func(*Task) error) error {
	if len(ids) == 0 {
		return nil
	}
	return eachTaskOf(ctx, conn, kb.TaskFilter{IDs: ids}, fn)
}

// eachTaskOf hands fn each task f selects, with its targets, in id order,
// a window at a time.
func eachTaskOf(ctx context.Context, conn *sql.Conn, f kb.TaskFilter, fn func(*Task) error) error {
	bounds, err := windowStarts(ctx, conn, f)
	if err != nil {
		return err
	}
	for i, lo := range bounds {
		hi := ""
		if i+1 < len(bounds) {
			hi = bounds[i+1]
		}
		if err := eachInWindow(ctx, conn, f, lo, hi, fn); err != nil {
			return err
		}
	}
	return nil
}

// windowStarts returns the first task id of each window of f's tasks, in
// id order: a window starts every taskWindow tasks and where the target
// bytes of the tasks before it pass a multiple of windowBytes.
func windowStarts(ctx context.Context, conn *sql.Conn, f kb.TaskFilter) ([]string, error) {
	return kb.SyntheticWindowStarts(ctx, conn, f, taskWindow, windowBytes)
}

// eachInWindow hands each task of f from lo up to hi, with its targets,
// to fn.
func eachInWindow(ctx context.Context, conn *sql.Conn, f kb.TaskFilter, lo, hi string, fn func(*Task) error) error {
	var cur *Task
	err := kb.EachTaskTarget(ctx, conn, f, lo, hi, func(t kb.TaskTarget) error {
		if cur != nil && cur.ID != t.TaskID {
			if err := fn(cur); err != nil {
				return err
			}
			cur = nil
		}
		if cur == nil {
			cur = &Task{ID: t.TaskID, Repo: t.Repo, Commit: t.Commit, Task: t.Task,
				Targets: map[string]json.RawMessage{}, TargetIDs: map[string]string{}}
		}
		cur.Targets[t.Stage] = json.RawMessage(t.Target)
		cur.TargetIDs[t.Stage] = t.TargetID
		return nil
	})
	if err != nil {
		return err
	}
	if cur != nil {
		return fn(cur)
	}
	return nil
}
