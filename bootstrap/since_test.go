package bootstrap

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/kb"
)

// Any sequence of --since and --max-commits runs, followed by a plain run,
// ends with the rows of one plain run: commits outside --since are neither
// recorded nor lost, and --max-commits spends its budget on mined commits.
func TestBootstrapSinceAndMaxCommitsLoseNothing(t *testing.T) {
	r, _ := project(t)
	full := newHome(t)
	mine(t, full, testOptions(), r.Dir)
	want := dump(t, full)

	at := func(minutes int) time.Time { return gittest.Epoch.Add(time.Duration(minutes) * time.Minute) }
	type run struct {
		since time.Duration // minutes after the first commit; 0: none
		max   int
	}
	for _, seq := range [][]run{
		{{since: 5}},
		{{since: 5, max: 2}, {since: 5, max: 2}, {since: 5, max: 2}, {since: 5, max: 2}},
		{{max: 3}, {since: 8}},
		{{since: 9}, {since: 3}},
		{{since: 7, max: 1}, {max: 2}, {since: 2}},
	} {
		t.Run(fmt.Sprint(seq), func(t *testing.T) {
			home := newHome(t)
			for i, step := range seq {
				opts := testOptions()
				opts.MaxCommits = step.max
				if step.since > 0 {
					opts.Since = at(int(step.since))
				}
				before := len(outcomes(t, home))
				sum := mine(t, home, opts, r.Dir)
				res := sum.Repos[0]
				if got := rawRows(t, home, "SELECT count(*) FROM bootstrap_commits WHERE run_id = ? AND committed_at < ?", sum.RunID, opts.Since); step.since > 0 && got[0] != "0" {
					t.Errorf("run %d: %s commits before --since recorded", i, got[0])
				}
				if step.max > 0 && res.Seen > step.max {
					t.Errorf("run %d: mined %d commits with --max-commits %d", i, res.Seen, step.max)
				}
				if after := len(outcomes(t, home)); after-before != res.Seen {
					t.Errorf("run %d: %d commits recorded, the summary says %d mined", i, after-before, res.Seen)
				}
			}
			mine(t, home, testOptions(), r.Dir)
			sameRows(t, dump(t, home), want)
			if res := mine(t, home, testOptions(), r.Dir).Repos[0]; res.Status != kb.StatusUpToDate {
				t.Errorf("a further plain run: status %s, want up_to_date", res.Status)
			}
		})
	}
}

// --max-commits with --since counts only commits mined: commits outside
// --since do not use up the budget.
func TestBootstrapMaxCommitsCountsOnlyMinedCommits(t *testing.T) {
	r, _ := project(t)
	home := newHome(t)
	opts := testOptions()
	opts.Since = gittest.Epoch.Add(6 * time.Minute)
	opts.MaxCommits = 2
	sum := mine(t, home, opts, r.Dir)
	if res := sum.Repos[0]; res.Seen != 2 || res.Status != kb.StatusPartial {
		t.Errorf("status %s, mined %d; want partial with 2 commits after --since", res.Status, res.Seen)
	}
}

// A commit an earlier run left unmined that the repository no longer has
// (history rewritten, then gc) is not walked from: the run does not fail,
// and the repository is up to date again.
func TestBootstrapForgetsUnminedCommitsThatAreGone(t *testing.T) {
	r, _ := project(t)
	home := newHome(t)
	mine(t, home, testOptions(), r.Dir)
	raw, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.DB.Exec(`INSERT INTO bootstrap_commits (run_id, repo_path, commit, parents, committed_at, files, insertions, deletions, outcome)
		VALUES (1, ?, 'feedfacefeedfacefeedfacefeedfacefeedface', ['0123456789abcdef0123456789abcdef01234567'], now(), [], 0, 0, 'merge')`,
		kb.CanonicalPath(r.Dir)); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if res := mine(t, home, testOptions(), r.Dir).Repos[0]; res.Status != kb.StatusUpToDate {
		t.Errorf("status %s (%s): want up_to_date, the gone commit ignored", res.Status, res.Error)
	}
}
