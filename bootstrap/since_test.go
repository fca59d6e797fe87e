package bootstrap

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/kb"
)

// Any sequence of --since and --max-commits runs, followed by a plain run,
// ends with the rows of one plain run: commits outside --since are neither
// recorded nor lost, and --max-commits spends its budget on mined commits.
func TestBootstrapSinceAndMaxCommitsLoseNothing(t *testing.T) {
	t.Parallel()
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
			t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// Batches give the ground truth of one run, byte for byte, co-change counts
// included: --max-commits batches that end between a merged branch and the
// younger commits of the line it is merged into (the walk delivers those
// first, first parents first), and --since runs that record a merge before
// the commits of its branch.
func TestBootstrapBatchesGiveTheTargetsOfOneRun(t *testing.T) {
	t.Parallel()
	repo := filepath.Join(t.TempDir(), "repo")
	gittest.Synthetic{Files: 20, Commits: 120, Funcs: 4, Realistic: true, MergedBranches: true}.Build(t, repo)
	one := newHome(t)
	mine(t, one, testOptions(), repo)
	want := dump(t, one)
	if n := mergeTaskCount(t, one); n < 2 {
		t.Fatalf("%d merge tasks: the fixture needs merged branches that are tasks", n)
	}
	// Each merge's committer time: a --since there records the merge and
	// defers its branch.
	var merges []time.Time
	for _, line := range strings.Split(gitOut(t, repo, "log", "--merges", "--reverse", "--format=%ct"), "\n") {
		secs, _ := strconv.ParseInt(line, 10, 64)
		merges = append(merges, time.Unix(secs, 0))
	}
	type run struct {
		since time.Time
		max   int
	}
	for _, tc := range []struct {
		name string
		runs []run
	}{
		{"--max-commits 9 until done", nil},
		{"--since the first merge, then all", []run{{since: merges[0]}}},
		{"--since the last merge, --since the first, then all", []run{{since: merges[len(merges)-1]}, {since: merges[0], max: 20}, {since: merges[0]}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home := newHome(t)
			for i := 0; tc.runs == nil; i++ {
				opts := testOptions()
				opts.MaxCommits = 9
				if mine(t, home, opts, repo).Repos[0].Status == kb.StatusOK {
					break
				}
				if i == 30 {
					t.Fatal("30 runs of --max-commits 9 did not finish")
				}
			}
			for _, r := range tc.runs {
				opts := testOptions()
				opts.Since, opts.MaxCommits = r.since, r.max
				mine(t, home, opts, repo)
			}
			mine(t, home, testOptions(), repo)
			sameRows(t, dump(t, home), want)
			// The case proves something only if a batch mined a commit
			// younger than one a later batch mined.
			if tc.runs == nil && rawRows(t, home, `SELECT count(*) FROM bootstrap_commits a JOIN bootstrap_commits b
				ON a.run_id < b.run_id AND a.committed_at > b.committed_at AND len(b.files) >= 2`)[0] == "0" {
				t.Error("no batch ended between a commit and an older one the walk delivers later")
			}
		})
	}
}

// A nightly --since run walks (and diffs) only the commits no earlier walk
// delivered: the history before --since is walked once, kept as walked,
// and walked again only by the run that mines it. The rows end as one
// plain run's, co-change counts included.
func TestNightlySinceRunsDoNotWalkTheOlderHistoryAgain(t *testing.T) {
	t.Parallel()
	repo := filepath.Join(t.TempDir(), "repo")
	gittest.Synthetic{Files: 20, Commits: 80, Funcs: 4, Realistic: true, MergedBranches: true}.Build(t, repo)
	r := gittest.Open(t, repo)
	// A tag on an old commit: a tip the walk starts from below --since.
	r.Git("tag", "v0.1", strings.Split(gitOut(t, repo, "rev-list", "--all", "--reverse", "--date-order"), "\n")[5])
	all := len(strings.Split(gitOut(t, repo, "rev-list", "--all"), "\n"))
	times := strings.Split(gitOut(t, repo, "log", "--all", "--format=%ct", "--reverse", "--date-order"), "\n")
	secs, _ := strconv.ParseInt(times[len(times)/2], 10, 64)
	since := time.Unix(secs, 0)
	before, _ := strconv.Atoi(gitOut(t, repo, "rev-list", "--all", "--count", "--before="+strconv.FormatInt(secs-1, 10)))

	home := newHome(t)
	nightly := func(since time.Time) *RepoResult {
		opts := testOptions()
		opts.Since = since
		return mine(t, home, opts, repo).Repos[0]
	}
	if res := nightly(since); res.Walked != all || res.Seen != all-before {
		t.Fatalf("first --since run: walked %d, mined %d; want all %d walked, the %d after --since mined", res.Walked, res.Seen, all, all-before)
	}
	if got := rawRows(t, home, "SELECT count(*) FROM bootstrap_walked")[0]; got != strconv.Itoa(before) {
		t.Errorf("%s commits kept as walked, want the %d before --since", got, before)
	}
	if res := nightly(since); res.Walked != 0 || res.Status != kb.StatusUpToDate {
		t.Errorf("the same --since again: walked %d, status %s; want 0 and up_to_date", res.Walked, res.Status)
	}
	r.Write("pkg/nightly.py", "def nightly(x):\n    return x + 1\n")
	r.Commit("Add a nightly helper to the package")
	r.Write("pkg/nightly.py", "def nightly(x):\n    return x + 2\n")
	r.Commit("Make the nightly helper add two")
	if res := nightly(since.Add(time.Hour)); res.Walked != 2 || res.Seen != 2 {
		t.Errorf("next night: walked %d, mined %d; want the 2 new commits", res.Walked, res.Seen)
	}
	// A plain run mines what --since left: it walks those commits, once.
	plain := mine(t, home, testOptions(), repo).Repos[0]
	if plain.Walked != before || plain.Seen != before {
		t.Errorf("plain run: walked %d, mined %d; want the %d commits before --since", plain.Walked, plain.Seen, before)
	}
	if got := rawRows(t, home, "SELECT count(*) FROM bootstrap_walked")[0]; got != "0" {
		t.Errorf("%s walked rows left once every commit is recorded", got)
	}
	full := newHome(t)
	mine(t, full, testOptions(), repo)
	sameRows(t, dump(t, home), dump(t, full))
}

// --since runs in processes of their own — killed -9 inside the write of
// the walked commits or of a batch, or two started together on one home —
// keep each commit before --since as walked once, or not at all: the
// nightly run after them walks only what no walk kept, and a plain run
// then ends with the rows of one plain run.
func TestSinceRunsKilledOrTogetherKeepWhatTheyWalked(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("mines a repository in a dozen processes")
	}
	repo := mergedHistory(t, 120)
	indexed := indexedHome(t, repo)
	full := homeIndexedAs(t, indexed)
	mine(t, full, testOptions(), repo)
	want := dump(t, full)
	times := strings.Split(gitOut(t, repo, "log", "--all", "--format=%ct", "--date-order", "--reverse"), "\n")
	secs, _ := strconv.ParseInt(times[len(times)/2], 10, 64)
	since := time.Unix(secs, 0).UTC()
	all := len(times)
	before, _ := strconv.Atoi(gitOut(t, repo, "rev-list", "--all", "--count", "--before="+strconv.FormatInt(secs-1, 10)))
	env := envSince + "=" + since.Format(time.RFC3339)

	for _, tc := range []struct {
		name   string
		run    func(t *testing.T, home string)
		walked int // commits kept as walked after it
	}{
		{"kill -9 in the walked commits' write", func(t *testing.T, home string) {
			if code := stopChild(t, home, repo, syscall.SIGKILL, envStopAt+"=walked:1", env); code != -1 {
				t.Fatalf("exit %d, want killed", code)
			}
		}, 0},
		{"kill -9 in the batch's write", func(t *testing.T, home string) {
			if code := stopChild(t, home, repo, syscall.SIGKILL, envStopAt+"=batch:1", env); code != -1 {
				t.Fatalf("exit %d, want killed", code)
			}
		}, before},
		{"two processes at once", func(t *testing.T, home string) {
			statuses := map[string]int{}
			for _, s := range runChildren(t, 2, home, repo, "2m", env) {
				statuses[s.Repos[0].Status]++
			}
			if statuses[kb.StatusOK] != 1 || statuses[kb.StatusUpToDate] != 1 {
				t.Errorf("statuses %v: want one run to mine, the other to find nothing new", statuses)
			}
		}, before},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home := homeIndexedAs(t, indexed)
			tc.run(t, home)
			if got := rawRows(t, home, "SELECT count(*), count(DISTINCT commit) FROM bootstrap_walked")[0]; got != fmt.Sprintf("%d\t%d", tc.walked, tc.walked) {
				t.Errorf("walked rows (all, distinct) %s; want %d kept once each", got, tc.walked)
			}
			opts := testOptions()
			opts.Since = since
			res := mine(t, home, opts, repo).Repos[0]
			mined := len(rawRows(t, home, "SELECT commit FROM bootstrap_commits"))
			if wantWalked := all - tc.walked - (mined - res.Seen); res.Walked != wantWalked || mined != all-before {
				t.Errorf("the nightly run after: walked %d, want %d; %d commits recorded, want the %d after --since",
					res.Walked, wantWalked, mined, all-before)
			}
			mine(t, home, testOptions(), repo)
			sameRows(t, dump(t, home), want)
			if got := rawRows(t, home, "SELECT count(*) FROM bootstrap_walked")[0]; got != "0" {
				t.Errorf("%s walked rows left once every commit is recorded", got)
			}
		})
	}
}
