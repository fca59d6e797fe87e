package bootstrap

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/ingest/walk"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// A second run over new commits ends with exactly the rows of a full run
// over the final history, and commits mined before the new ones existed
// get the same ground truth as when mined after: nothing from the future
// reaches a commit's ground truth.
func TestBootstrapIncrementalEqualsFullAndNoLeakage(t *testing.T) {
	t.Parallel()
	r, c := project(t)
	home := newHome(t)
	first := mine(t, home, testOptions(), r.Dir)

	// The future: store.py and util.py change together twice (co-change
	// that would make util.py a tier-3 candidate of the "default" commit if
	// it leaked), a second Store class (a seed of the "default" commit, which
	// names Store.get, if it leaked), and a new branch merged in.
	for i, msg := range []string{"Share the slug helper with the store module", "Keep store keys and slugs consistent on save"} {
		r.Write("app/util.py", utilV1+strings.Repeat("\n# note\n", i+1))
		r.Write("app/store.py", storeV1+strings.Repeat("\n# keys are slugs\n", i+1))
		r.Commit(msg)
	}
	r.Write("app/cache2.py", "class Store:\n    def get(self, key):\n        return None\n")
	r.Commit("Add a second Store class for the cache layer")
	r.Git("checkout", "-q", "-b", "later")
	r.Write("app/extra.py", "def extra_helper(x):\n    return x\n")
	r.Commit("Add extra_helper for the reporting module")
	r.Git("checkout", "-q", "main")
	r.Merge("later", "Merge branch 'later'")

	second := mine(t, home, testOptions(), r.Dir)
	if got := second.Repos[0].Seen; got != 5 {
		t.Errorf("second run walked %d commits, want the 5 new ones (first run: %d)", got, first.Repos[0].Seen)
	}
	third := mine(t, home, testOptions(), r.Dir)
	if res := third.Repos[0]; res.Status != kb.StatusUpToDate || res.Seen != 0 {
		t.Errorf("no-change run: status %s, seen %d; want up_to_date and 0", res.Status, res.Seen)
	}

	full := newHome(t)
	mine(t, full, testOptions(), r.Dir)
	sameRows(t, dump(t, home), dump(t, full))

	var s schema.ScopeTarget
	targetOf(t, full, c["default"], schema.StageScope, &s)
	for _, cand := range s.Candidates {
		switch cand.Path {
		case "app/util.py":
			t.Errorf("util.py is a candidate of an earlier commit (%+v): later co-changes leaked", cand)
		case "app/cache2.py":
			t.Errorf("cache2.py is a candidate of an earlier commit (%+v): a later Store leaked", cand)
		}
	}
}

// --max-commits cuts a run short without moving the watermark; repeated
// runs finish the job with the rows of one full run.
func TestBootstrapMaxCommitsResumes(t *testing.T) {
	t.Parallel()
	r, _ := project(t)
	home := newHome(t)
	opts := testOptions()
	opts.MaxCommits = 3
	runs := 0
	for ; runs < 10; runs++ {
		sum := mine(t, home, opts, r.Dir)
		if sum.Repos[0].Status == kb.StatusOK {
			break
		}
		if sum.Repos[0].Status != kb.StatusPartial || sum.Repos[0].Seen != 3 {
			t.Fatalf("run %d: status %s, seen %d; want partial with 3", runs, sum.Repos[0].Status, sum.Repos[0].Seen)
		}
	}
	if runs < 2 {
		t.Fatalf("finished after %d runs of at most 3 commits: the history has 8", runs+1)
	}
	full := newHome(t)
	mine(t, full, testOptions(), r.Dir)
	sameRows(t, dump(t, home), dump(t, full))
}

// Each blob is parsed once per run, whichever commits' states contain it.
func TestBootstrapParsesEachBlobOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/repo"
	gittest.Synthetic{Files: 30, Commits: 120, Funcs: 3, Realistic: true}.Build(t, dir)
	home := newHome(t)
	sum := mine(t, home, testOptions(), dir)
	res := sum.Repos[0]
	if res.Verified == 0 {
		t.Fatalf("nothing verified: %v", res.Outcomes)
	}
	// Distinct source blobs in the whole history bound the parses.
	blobs := map[string]bool{}
	for _, line := range strings.Split(gitOut(t, dir, "rev-list", "--objects", "--all"), "\n") {
		if _, p, ok := strings.Cut(line, " "); ok && walk.SourceFile(p) {
			blobs[line[:40]] = true
		}
	}
	if res.BlobsParsed == 0 || res.BlobsParsed > len(blobs) {
		t.Errorf("parsed %d blobs; the history holds %d distinct source blobs", res.BlobsParsed, len(blobs))
	}
}

func gitOut(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// A run (its indexing first, then its writes) waits for a store another
// writer holds instead of failing.
func TestBootstrapWaitsForTheStore(t *testing.T) {
	t.Parallel()
	r, _ := project(t)
	home := newHome(t)
	held, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{Write: true, Command: "test"})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		held.Close()
	}()
	start := time.Now()
	sum := mine(t, home, testOptions(), r.Dir)
	if sum.Verified == 0 || time.Since(start) < 300*time.Millisecond {
		t.Errorf("verified %d after %v: want the run to wait for the store, then mine", sum.Verified, time.Since(start))
	}
}
