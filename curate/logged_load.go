package curate

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/kb"
)

// callWindow is about how many logged calls one window of runs holds (and
// windowBytes about how much of their text): the calls' text is read a
// window at a time, so memory stays flat however
// many calls the store holds.
const callWindow = 8_000

// loggedRun is one finished cra solve run (an eval's runs are solve runs)
// with what curate needs of it: its passes, their answers and attempts,
// and, for an eval's run, the task it was scored on.
type loggedRun struct {
	id, repo  string
	first     int64 // its first and last answered call's id
	last      int64
	status    string // the orchestrator's: complete, partial, failed; "" for a --plan run
	success   bool
	finalDiff string
	evalTask  string // synthetic_tasks.id when an eval ran it
	evalRun   int64
	commit    string          // the eval task's commit
	scores    map[string]bool // stage → correct, from the eval's results
	passes    []loggedPass    // in order
	truth     *prompt.Truth   // the eval task's ground truth (read with the window)
}

// loggedPass is one pass of a run: its last answer per call type, and its
// implement attempt.
type loggedPass struct {
	taskID, passType, partID, stepID string
	seq                              int
	success                          bool
	calls                            map[string]*loggedCall // call type → the pass's last answered call
	attempt                          *loggedAttempt
}

// loggedCall is a logged model call: the exact prompt and the answer.
type loggedCall struct {
	id                       int64
	system, user, completion string
}

// loggedAttempt is an implement attempt and its tests.
type loggedAttempt struct {
	id           int64
	attempt      int
	applied      bool
	testsPassed  bool
	failingTests []string
}

func (a *loggedAttempt) passed() bool { return a != nil && a.applied && a.testsPassed }

// loggedWindows reads the finished runs of the selected repositories with
// their passes, attempts and eval scores (no text), grouped in windows of
// about callWindow answered calls, runs ordered by their first call so a
// window's calls are close together in the store.
func loggedWindows(ctx context.Context, conn *sql.Conn, opts Options) ([][]*loggedRun, error) {
	byID := map[string]*loggedRun{}
	var windows [][]*loggedRun
	var win []*loggedRun
	var n, size int64
	err := kb.EachLoggedRun(ctx, conn, opts.Repos, func(l kb.LoggedRun) error {
		r := &loggedRun{id: l.Run, repo: l.Repo, first: l.First, last: l.Last, status: l.Status, success: l.Success,
			finalDiff: l.FinalDiff, evalTask: l.EvalTask, evalRun: l.EvalRun, commit: l.Commit, scores: map[string]bool{}}
		byID[r.id] = r
		win = append(win, r)
		n, size = n+l.Calls, size+l.Bytes
		if n >= callWindow || size >= windowBytes {
			windows, win, n, size = append(windows, win), nil, 0, 0
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(win) > 0 {
		windows = append(windows, win)
	}
	if err := readPasses(ctx, conn, byID); err != nil {
		return nil, err
	}
	if err := readAttempts(ctx, conn, byID); err != nil {
		return nil, err
	}
	return windows, readScores(ctx, conn, byID)
}

// readPasses adds each run's passes: the orchestrator's, or the task runs
// under the run's id for a --plan run (which has no orchestrator rows: its
// one pass, of mode implement, is a step's).
func readPasses(ctx context.Context, conn *sql.Conn, runs map[string]*loggedRun) error {
	return kb.EachLoggedPass(ctx, conn, func(p kb.LoggedPass) error {
		if r := runs[p.Run]; r != nil {
			r.passes = append(r.passes, loggedPass{taskID: p.TaskID, passType: p.PassType, partID: p.PartID, stepID: p.StepID,
				seq: p.Seq, success: p.Success, calls: map[string]*loggedCall{}})
		}
		return nil
	})
}

// readAttempts adds each implement pass's attempt and its tests.
func readAttempts(ctx context.Context, conn *sql.Conn, runs map[string]*loggedRun) error {
	return kb.EachLoggedAttempt(ctx, conn, func(l kb.LoggedAttempt) error {
		a := &loggedAttempt{id: l.ID, attempt: l.Attempt, applied: l.Applied, testsPassed: l.TestsPassed}
		if err := json.Unmarshal([]byte(l.FailingTests), &a.failingTests); err != nil {
			return err
		}
		r := runs[strings.SplitN(l.TaskID, ":", 2)[0]]
		if r == nil {
			return nil
		}
		for i := range r.passes {
			if r.passes[i].taskID == l.TaskID {
				r.passes[i].attempt = a
			}
		}
		return nil
	})
}

// readScores adds the eval's verdict per stage to the runs an eval ran.
func readScores(ctx context.Context, conn *sql.Conn, runs map[string]*loggedRun) error {
	return kb.EachEvalScore(ctx, conn, func(run, stage string, correct bool) error {
		if r := runs[run]; r != nil {
			r.scores[stage] = correct
		}
		return nil
	})
}

// readWindow adds the window's text: each pass's last answered call per
// type, and the ground truth of the eval tasks among its runs.
func readWindow(ctx context.Context, conn *sql.Conn, win []*loggedRun) error {
	ids := make([]string, len(win))
	byID := map[string]*loggedRun{}
	var tasks []string
	lo, hi := win[0].first, win[0].last
	for i, r := range win {
		lo, hi = min(lo, r.first), max(hi, r.last)
		ids[i], byID[r.id] = r.id, r
		if r.evalTask != "" {
			tasks = append(tasks, r.evalTask)
		}
	}
	err := kb.EachLastLoggedCall(ctx, conn, lo, hi, ids, func(l kb.LoggedCall) error {
		c := &loggedCall{id: l.ID, system: l.System, user: l.User, completion: l.Completion}
		r := byID[strings.SplitN(l.TaskID, ":", 2)[0]]
		for i := range r.passes {
			if r.passes[i].taskID == l.TaskID {
				r.passes[i].calls[l.CallType] = c
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(tasks) == 0 {
		return nil
	}
	targets, err := kb.TruthsOf(ctx, conn, tasks)
	if err != nil {
		return err
	}
	truths := map[string]*prompt.Truth{}
	for id, js := range targets {
		t := &prompt.Truth{}
		if err := json.Unmarshal([]byte(js), t); err != nil {
			return fmt.Errorf("ground truth of task %s: %w", id, err)
		}
		truths[id] = t
	}
	for _, r := range win {
		r.truth = truths[r.evalTask]
	}
	return nil
}

// release drops a window's text once its examples are made.
func release(win []*loggedRun) {
	for _, r := range win {
		r.truth = nil
		for i := range r.passes {
			r.passes[i].calls = map[string]*loggedCall{}
		}
	}
}
