package bootstrap

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/gittest"
)

// graphOfRepo reads a repository's whole graph with git.
func graphOfRepo(t testing.TB, dir string) (*commitGraph, []string) {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "log", "--all", "--format=%H %P").Output()
	if err != nil {
		t.Fatal(err)
	}
	parents := map[string][]string{}
	var commits []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		parents[f[0]] = append([]string{}, f[1:]...)
		commits = append(commits, f[0])
	}
	return graphOf(parents, func(c string) bool { return len(parents[c]) == 0 }), commits
}

// checkBranch compares graph.branch(tip, base) with git rev-list: the same
// lines in the same order when they make a line, the same commits
// otherwise.
func checkBranch(t testing.TB, dir string, g *commitGraph, tip, base string) {
	t.Helper()
	want, err := gitLines(t.Context(), dir, "rev-list", "--reverse", "--topo-order", "--parents", tip, "^"+base)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := g.branch(tip, base)
	if !ok {
		t.Fatalf("%s ^%s: the whole graph cannot tell", tip[:8], base[:8])
	}
	if branchOutcome(nil, want, 1<<30) == MergeBranchNotALine {
		want, got = slices.Sorted(slices.Values(want)), slices.Sorted(slices.Values(got))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s ^%s:\n got %q\nwant %q", tip[:8], base[:8], got, want)
	}
}

// Over a history of branches forked anywhere, merged both ways, merged
// again and octopus-merged, the branch of every merge and of random pairs
// of commits is the one git lists.
func TestBranchesAreTheOnesGitLists(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	rnd := rand.New(rand.NewPCG(5, 9))
	r.Write("a.txt", "0\n")
	r.Commit("root")
	var commits []string
	for i := range 120 {
		switch rnd.IntN(6) {
		case 0: // a branch from an older commit
			if len(commits) > 0 {
				r.Git("checkout", "-q", "-B", fmt.Sprintf("b%d", rnd.IntN(4)), commits[rnd.IntN(len(commits))])
			}
		case 1: // merge another branch in
			branches := strings.Fields(r.Git("for-each-ref", "--format=%(refname:short)", "refs/heads"))
			other := branches[rnd.IntN(len(branches))]
			r.Git("merge", "-q", "--no-ff", "--allow-unrelated-histories", "-s", "ours", "-m", "merge "+other, other)
		case 2: // an octopus
			branches := strings.Fields(r.Git("for-each-ref", "--format=%(refname:short)", "refs/heads"))
			if len(branches) >= 3 {
				r.Git("merge", "-q", "--no-ff", "--allow-unrelated-histories", "-s", "ours", "-m", "octopus", branches[0], branches[1])
			}
		}
		r.Write(fmt.Sprintf("f%d.txt", i%7), fmt.Sprintf("%d\n", i))
		commits = append(commits, r.Commit(fmt.Sprintf("c%d", i)))
	}
	g, all := graphOfRepo(t, r.Dir)
	merges := 0
	for _, c := range all {
		if ps := g.parents[c]; len(ps) >= 2 {
			checkBranch(t, r.Dir, g, ps[1], ps[0])
			merges++
		}
	}
	for range 200 {
		checkBranch(t, r.Dir, g, all[rnd.IntN(len(all))], all[rnd.IntN(len(all))])
	}
	if merges < 10 {
		t.Fatalf("only %d merges: the history proves little", merges)
	}
	// A graph missing a commit cannot tell what lies below it, nor one
	// that recorded a commit without the parents git now sees (a shallow
	// clone deepened since).
	for _, c := range all {
		if ps := g.parents[c]; len(ps) == 2 {
			parents := maps.Clone(g.parents)
			delete(parents, ps[1])
			if _, ok := graphOf(parents, g.root).branch(ps[1], ps[0]); ok {
				t.Fatal("a branch through a commit missing from the graph was listed")
			}
			parents = maps.Clone(g.parents)
			parents[ps[1]] = nil
			if _, ok := graphOf(parents, g.root).branch(ps[1], ps[0]); ok {
				t.Fatal("a branch through a commit recorded without its parents was listed")
			}
			break
		}
	}
}

// CRA_BRANCH_REPO (a clone's path) checks the branch of every merge of
// its history against git: run by hand on real clones.
func TestBranchesOfARealHistory(t *testing.T) {
	dir := os.Getenv("CRA_BRANCH_REPO")
	if dir == "" {
		t.Skip("set CRA_BRANCH_REPO to a clone")
	}
	g, all := graphOfRepo(t, dir)
	n := 0
	for _, c := range all {
		if ps := g.parents[c]; len(ps) >= 2 {
			checkBranch(t, dir, g, ps[1], ps[0])
			n++
		}
	}
	t.Logf("%d merges: the branches git lists", n)
}

// One git process reads what `git log -1 --format=%an%x00%B` and a trim
// gave for each merge: messages with blank lines, spaces at both ends,
// other scripts, an empty one.
func TestCommitMessagesAreGitLogs(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	var commits []string
	for i, msg := range []string{"plain", "  spaced both ends  \n\n", "title\n\nbody line\n\n  indented\n\n\n", "ünïcödé — 中文", "", "tab\tin it\n"} {
		r.Write("a.txt", fmt.Sprint(i))
		r.Git("add", "-A")
		r.Git("commit", "-q", "--allow-empty-message", "--cleanup=verbatim", "-m", msg)
		commits = append(commits, r.Head())
	}
	got, err := commitMessages(t.Context(), r.Dir, slices.Concat(commits, commits[:2]))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range commits {
		out, err := gitOutput(t.Context(), r.Dir, "log", "-1", "--format=%an%x00%B", c)
		if err != nil {
			t.Fatal(err)
		}
		author, message, _ := strings.Cut(out, "\x00")
		if want := (commitMessage{author, message}); got[c] != want {
			t.Errorf("%s: got %q, git log -1 gives %q", c[:8], got[c], want)
		}
	}
}
