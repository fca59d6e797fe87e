package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/cra-dev/cra/agent/orchestrator"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/kb"
)

// How a task's end-to-end success is judged (eval_commit_judgements.judged_by).
const (
	JudgedByTests        = "tests"
	JudgedByReproduction = "reproduction"
	JudgedUndecidable    = "undecidable"
)

// Why (eval_commit_judgements.reason).
const (
	ReasonFailToPass      = "fail_to_pass"      // tests: some test fails at the parent and passes at the commit
	ReasonNoTestCommand   = "no_test_command"   // reproduction: the repository has no test command
	ReasonNoFailToPass    = "no_fail_to_pass"   // reproduction: the commit's tests pass at the parent too
	ReasonCommitFails     = "commit_fails"      // reproduction: the commit's tests fail naming no test (they did not run: a build, a setup)
	ReasonTimeoutAtCommit = "timeout_at_commit" // undecidable: the commit's tests did not end in timeout_seconds
	ReasonTimeoutAtParent = "timeout_at_parent" // undecidable: the tests at the parent did not end in the eval's timeout
)

// judgement is how one commit's replays are judged, decided once per
// repository, commit and test command from two runs of the test command:
// at the commit, and at its parent with the commit's test files laid
// over it (SWE-bench's FAIL_TO_PASS and PASS_TO_PASS).
type judgement struct {
	JudgedBy, Reason string
	// FailToPass fail at the parent and pass at the commit; PassToPass
	// pass at both (where the runner names passing tests); FailsAtCommit
	// fail at the commit itself (a test needing the network), which a run
	// is not asked to fix.
	FailToPass, PassToPass, FailsAtCommit []string
	CommitTime, ParentTime                time.Duration
	// Timeout is the eval's test timeout for this commit's runs.
	Timeout time.Duration
}

// testTimeout is the eval's test timeout for a commit whose own tests took
// took: eval_timeout_factor times that, at least eval_timeout_floor_seconds,
// at most timeout_seconds.
func testTimeout(tc config.Testing, took time.Duration) time.Duration {
	limit := time.Duration(tc.TimeoutSeconds) * time.Second
	t := time.Duration(float64(took) * tc.EvalTimeoutFactor)
	t = max(t, time.Duration(tc.EvalTimeoutFloorSeconds)*time.Second)
	return min(t, limit)
}

// decide judges from the test runs at the commit and at the parent (with
// the commit's tests): by the tests when some test the commit's run does
// not fail fails at the parent; by reproduction when none does or the
// commit's own run names no test it failed; undecidable when either did
// not end in time.
func decide(atCommit, atParent orchestrator.Verdicts) judgement {
	j := judgement{JudgedBy: JudgedByReproduction, FailsAtCommit: nonNil(atCommit.Failed)}
	switch {
	case atCommit.TimedOut:
		j.JudgedBy, j.Reason = JudgedUndecidable, ReasonTimeoutAtCommit
	case !atCommit.RanTests():
		j.Reason = ReasonCommitFails
	case atParent.TimedOut:
		j.JudgedBy, j.Reason = JudgedUndecidable, ReasonTimeoutAtParent
	}
	j.FailToPass, j.PassToPass = []string{}, []string{}
	if j.Reason != "" {
		return j
	}
	for _, f := range atParent.Failed {
		if !slices.Contains(atCommit.Failed, f) {
			j.FailToPass = append(j.FailToPass, f)
		}
	}
	for _, p := range atParent.Passed {
		if slices.Contains(atCommit.Passed, p) {
			j.PassToPass = append(j.PassToPass, p)
		}
	}
	if len(j.FailToPass) == 0 {
		j.Reason = ReasonNoFailToPass
		return j
	}
	j.JudgedBy, j.Reason = JudgedByTests, ReasonFailToPass
	return j
}

// passes is the verdict on a run's result with the commit's tests laid
// over it: it ended in time and every test it failed also fails at the
// commit (so each FAIL_TO_PASS test passes and no PASS_TO_PASS one broke).
func (j judgement) passes(o orchestrator.Verdicts) bool {
	if o.TimedOut {
		return false
	}
	for _, f := range o.Failed {
		if !slices.Contains(j.FailsAtCommit, f) {
			return false
		}
	}
	return true
}

// judgeCommit runs the commit's tests at the commit (with timeout_seconds)
// and at the parent with the commit's test files laid over it (with the
// eval's timeout derived from the first), decides, and keeps the
// judgement in eval_commit_judgements.
func judgeCommit(ctx context.Context, home string, raw *kb.Lease, t Task, tc config.Testing, box orchestrator.Box, phase func(string)) (judgement, error) {
	phase("tests at the commit")
	atCommit, err := testsIn(ctx, home, t, t.Commit, "evalchild-", false, tc, box, time.Duration(tc.TimeoutSeconds)*time.Second)
	if err != nil {
		return judgement{}, err
	}
	timeout := testTimeout(tc, atCommit.Duration)
	atParent := orchestrator.Result{}
	if !atCommit.TimedOut {
		phase("tests at the parent")
		if atParent, err = testsIn(ctx, home, t, t.Parent, "evalparent-", true, tc, box, timeout); err != nil {
			return judgement{}, err
		}
	}
	j := decide(orchestrator.VerdictsOf(atCommit), orchestrator.VerdictsOf(atParent))
	j.CommitTime, j.ParentTime, j.Timeout = atCommit.Duration, atParent.Duration, timeout
	return j, raw.Write(ctx, func(w kb.Writer) error {
		lists := make([]any, 0, 3)
		for _, l := range [][]string{j.FailToPass, j.PassToPass, j.FailsAtCommit} {
			b, err := json.Marshal(l)
			if err != nil {
				return err
			}
			lists = append(lists, string(b))
		}
		_, err := w.Conn.ExecContext(ctx, `INSERT INTO eval_commit_judgements (repo_path, commit, test_command, judged_by, reason,
				fail_to_pass, pass_to_pass, fails_at_commit, commit_ms, parent_ms, timeout_ms, commit_output_tail, parent_output_tail, ran_at)
			SELECT ?, ?, ?, ?, ?, ?::VARCHAR[], ?::VARCHAR[], ?::VARCHAR[], ?, ?, ?, ?, ?, ?
			WHERE NOT EXISTS (SELECT 1 FROM eval_commit_judgements WHERE repo_path = ? AND commit = ? AND test_command = ?)`,
			t.Repo, t.Commit, tc.TestCommand, j.JudgedBy, j.Reason, lists[0], lists[1], lists[2],
			j.CommitTime.Milliseconds(), j.ParentTime.Milliseconds(), j.Timeout.Milliseconds(),
			orchestrator.Tail(atCommit.Output, 4<<10), orchestrator.Tail(atParent.Output, 4<<10), time.Now().UTC(),
			t.Repo, t.Commit, tc.TestCommand)
		return err
	})
}

// runPasses judges a finished run: the test command on its branch with the
// commit's test files laid over it, within the eval's timeout.
func runPasses(ctx context.Context, home string, t Task, j judgement, tc config.Testing, box orchestrator.Box, branch string) (bool, error) {
	res, err := testsIn(ctx, home, t, branch, "evaltests-", true, tc, box, j.Timeout)
	if err != nil {
		return false, err
	}
	return j.passes(orchestrator.VerdictsOf(res)), nil
}

// testsIn runs the test command in a scratch worktree of rev (this process's own,
// with the commit's test files laid over it when withCommitTests), the
// runners asked to name every test (judgeEnv), and removes the worktree.
func testsIn(ctx context.Context, home string, t Task, rev, kind string, withCommitTests bool, tc config.Testing, box orchestrator.Box, timeout time.Duration) (orchestrator.Result, error) {
	// The process's own (two evals may judge one commit at once).
	id := fmt.Sprintf("%s%s%d-%s", orchestrator.ScratchPrefix, kind, os.Getpid(), t.Commit[:16])
	orchestrator.DiscardWorktree(ctx, home, t.Repo, id)
	wt, err := orchestrator.AddWorktree(ctx, home, t.Repo, rev, id)
	if err != nil {
		return orchestrator.Result{}, err
	}
	defer orchestrator.DiscardWorktree(context.WithoutCancel(ctx), home, t.Repo, id)
	if withCommitTests {
		if err := layCommitTests(wt.Dir, t); err != nil {
			return orchestrator.Result{}, fmt.Errorf("lay the commit's tests over %s: %w", rev, err)
		}
	}
	box.Env = judgeEnv(box.Env) // this run's copy
	res := orchestrator.RunShell(ctx, box, wt.Dir, orchestrator.KindTest, tc.TestCommand, timeout)
	return res, ctx.Err()
}

// commitJudgements loads eval_commit_judgements: repository, commit and
// test command (joined by NUL) → the judgement.
func commitJudgements(ctx context.Context, q kb.Querier) (map[string]judgement, error) {
	rows, err := q.QueryContext(ctx, `SELECT repo_path || chr(0) || commit || chr(0) || test_command, judged_by, reason,
			to_json(fail_to_pass)::VARCHAR, to_json(pass_to_pass)::VARCHAR, to_json(fails_at_commit)::VARCHAR, commit_ms, parent_ms, timeout_ms
		FROM eval_commit_judgements`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]judgement{}
	for rows.Next() {
		var k, f2p, p2p, fails string
		var j judgement
		var commitMS, parentMS, timeoutMS int64
		if err := rows.Scan(&k, &j.JudgedBy, &j.Reason, &f2p, &p2p, &fails, &commitMS, &parentMS, &timeoutMS); err != nil {
			return nil, err
		}
		for _, l := range []struct {
			s   string
			dst *[]string
		}{{f2p, &j.FailToPass}, {p2p, &j.PassToPass}, {fails, &j.FailsAtCommit}} {
			if err := json.Unmarshal([]byte(l.s), l.dst); err != nil {
				return nil, fmt.Errorf("eval_commit_judgements %q: %w", k, err)
			}
		}
		j.CommitTime, j.ParentTime, j.Timeout = time.Duration(commitMS)*time.Millisecond, time.Duration(parentMS)*time.Millisecond, time.Duration(timeoutMS)*time.Millisecond
		out[k] = j
	}
	return out, rows.Err()
}

// judgeWithoutTests is the step verdict of a task judged without tests:
// the step passes when its edits applied, and the run is judged afterwards
// by reproducing its commit (no test command), or not at all (its tests do
// not end in time at the parent); its validation_results row says which.
func judgeWithoutTests(why string) func(context.Context, string) (orchestrator.Report, error) {
	return func(context.Context, string) (orchestrator.Report, error) {
		return orchestrator.Report{Test: orchestrator.Result{Kind: orchestrator.KindTest, Command: "(none)", Passed: true, Output: why}}, nil
	}
}

// judgeEnv asks the runners of the judgement's test runs to name every
// test's result, not only the failures: go test's -v through GOFLAGS and
// pytest's -rA summary through PYTEST_ADDOPTS (added to what the
// environment already sets). Other runners are read as they print.
func judgeEnv(environ []string) []string {
	out := slices.Clone(environ)
	add := func(key, value string) {
		for i, kv := range out {
			if k, v, ok := strings.Cut(kv, "="); ok && k == key {
				out[i] = key + "=" + strings.TrimSpace(v+" "+value)
				return
			}
		}
		out = append(out, key+"="+value)
	}
	add("GOFLAGS", "-v")
	add("PYTEST_ADDOPTS", "-rA")
	return out
}
