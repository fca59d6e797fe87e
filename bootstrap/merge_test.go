package bootstrap

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/cra-dev/cra/ingest/history"
	"github.com/cra-dev/cra/ingest/walk"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// A merged pull request of three commits is a task of three parts, from
// where the branch started to its tip: the parts in order with their
// files and dependencies, and edits that reproduce the branch's tip byte
// for byte. A branch of one commit, or one with a commit that is no task,
// is not; a re-run adds nothing.
func TestMergedBranchIsAMultiPartTask(t *testing.T) {
	t.Parallel()
	m := gittest.ShopWithMergedBranch(t)
	r, fork, tip, merge := m.Repo, m.Fork, m.Parts[len(m.Parts)-1], m.Merge

	r.Git("checkout", "-q", "-b", "one")
	r.Write("shop/discount.py", "def apply(price, rate):\n    return round(price * (1 - rate), 2)\n")
	r.Commit("Round discounted prices to two decimals")
	r.Git("checkout", "-q", "main")
	r.Write("README.md", "# shop\n\nA small shop.\n")
	r.Commit("Say what the shop package is for in the readme")
	r.Merge("one", "Merge branch 'one'")

	home := newHome(t)
	mine(t, home, testOptions(), r.Dir)
	rows := rawRows(t, home, `SELECT commit, parent, task FROM synthetic_tasks WHERE commit IN (SELECT commit FROM bootstrap_commits WHERE len(parents) = 2)`)
	if len(rows) != 1 {
		t.Fatalf("merge tasks %q, want the three-commit branch's only", rows)
	}
	f := strings.SplitN(rows[0], "\t", 3)
	if f[0] != merge || f[1] != fork || !strings.HasPrefix(f[2], "Support discounts at checkout\n\n- Add a discount module") {
		t.Errorf("merge task %q: want commit %.8s, parent %.8s (the fork), the pull request's title", f, merge, fork)
	}
	var meta schema.MetaPlan
	targetOf(t, home, merge, schema.StageMetaPlan, &meta)
	if err := meta.Validate(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range meta.Parts {
		got = append(got, p.ID+":"+strings.Join(p.AffectedFiles, ",")+"<"+strings.Join(p.DependsOn, ","))
	}
	want := []string{"p1:shop/discount.py<", "p2:shop/price.py<p1", "p3:shop/cart.py<p2"}
	if !slices.Equal(got, want) {
		t.Errorf("parts %q, want %q (price imports discount, cart imports price)", got, want)
	}
	var im schema.ImplementTarget
	targetOf(t, home, merge, schema.StageImplement, &im)
	for _, file := range im.Files {
		var edits []schema.Edit
		for _, e := range im.Edits {
			if e.File == file.Path {
				edits = append(edits, e)
			}
		}
		after, err := schema.ApplyEdits([]byte(file.Content), edits)
		if err != nil {
			t.Fatalf("%s: %v", file.Path, err)
		}
		if want := r.Git("show", tip+":"+file.Path); strings.TrimSpace(string(after)) != want {
			t.Errorf("%s after the edits:\n%s\nthe branch's tip:\n%s", file.Path, after, want)
		}
	}
	var scope schema.ScopeTarget
	targetOf(t, home, merge, schema.StageScope, &scope)
	if !slices.Equal(scope.Touched, []string{"shop/price.py", "shop/cart.py"}) || !slices.Equal(scope.Created, []string{"shop/discount.py"}) {
		t.Errorf("touched %q, created %q", scope.Touched, scope.Created)
	}
	var plan schema.PlanArtifact
	targetOf(t, home, merge, schema.StagePlan, &plan)
	if err := plan.Validate(); err != nil || plan.AffectedFiles[0].Role != "create" {
		t.Errorf("plan %+v: %v", plan, err)
	}
	js, _ := json.Marshal(plan)
	before := dump(t, home)
	r.Write("shop/__init__.py", "\"\"\"The shop.\"\"\"\n")
	r.Commit("Document the shop package in its init module")
	mine(t, home, testOptions(), r.Dir)
	if n := len(rawRows(t, home, `SELECT id FROM synthetic_tasks WHERE commit = ?`, merge)); n != 1 {
		t.Errorf("%d merge tasks after a re-run (plan %s)", n, js)
	}
	if len(dump(t, home)["synthetic_targets"]) <= len(before["synthetic_targets"]) {
		t.Error("the new commit was not mined")
	}
}

// The merge phase finds the files a merged branch leaves at its tip as
// the build parsed them: every source blob of the history is parsed once
// in the run, none of them again for the merge task.
func TestMergePhaseParsesNoTipAgain(t *testing.T) {
	t.Parallel()
	m := gittest.ShopWithMergedBranch(t)
	res := mine(t, newHome(t), testOptions(), m.Repo.Dir).Repos[0]
	if res.MergeTasks != 1 {
		t.Fatalf("%d merge tasks, want 1", res.MergeTasks)
	}
	blobs := map[string]bool{}
	for _, line := range strings.Split(gitOut(t, m.Repo.Dir, "rev-list", "--objects", "--all"), "\n") {
		if _, p, ok := strings.Cut(line, " "); ok && walk.SourceFile(p) {
			blobs[line[:40]] = true
		}
	}
	if res.BlobsParsed != len(blobs) {
		t.Errorf("parsed %d blobs; the history holds %d distinct source blobs, each parsed once", res.BlobsParsed, len(blobs))
	}
}

// A merge recorded without a decision — by a version of bootstrap that
// lost it when stopped, before bootstrap_merges existed — is examined by
// the next run, even one that finds no new commit; a branch rejected once
// is not examined again.
func TestUndecidedMergesAreExaminedByTheNextRun(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write("shop/__init__.py", "")
	r.Write("shop/price.py", "def total(items):\n    return sum(i.price for i in items)\n")
	r.Commit("Create the shop package with prices")
	r.Git("checkout", "-q", "-b", "discounts")
	r.Write("shop/discount.py", "def apply(price, rate):\n    return price * (1 - rate)\n")
	r.Commit("Add a discount module that applies a rate")
	r.Write("shop/price.py", "from shop.discount import apply\n\n\ndef total(items, rate=0):\n    return apply(sum(i.price for i in items), rate)\n")
	r.Commit("Let total apply a discount rate to the sum")
	r.Git("checkout", "-q", "main")
	r.Write("README.md", "# shop\n")
	r.Commit("Describe the shop package in a readme file")
	merge := r.Merge("discounts", "Merge pull request #7 from me/discounts\n\nSupport discounts")
	r.Git("checkout", "-q", "-b", "one")
	r.Write("shop/discount.py", "def apply(price, rate):\n    return round(price * (1 - rate), 2)\n")
	r.Commit("Round discounted prices to two decimals")
	r.Git("checkout", "-q", "main")
	short := r.Merge("one", "Merge branch 'one'")

	home := newHome(t)
	mine(t, home, testOptions(), r.Dir)
	want := dump(t, home)
	if got := rawRows(t, home, `SELECT commit, parts, outcome FROM bootstrap_merges ORDER BY outcome`); !slices.Equal(got,
		[]string{short + "\t1\t" + MergeBranchTooShort, merge + "\t2\t" + MergeTask}) {
		t.Fatalf("merge decisions %q", got)
	}
	for _, q := range []string{
		`DELETE FROM synthetic_targets WHERE commit = ?`, `DELETE FROM synthetic_tasks WHERE commit = ?`,
		`DELETE FROM bootstrap_merges WHERE commit = ?`,
	} {
		storetest.Exec(t, home, kb.Raw, q, merge)
	}
	res := mine(t, home, testOptions(), r.Dir).Repos[0]
	if res.Status != kb.StatusUpToDate || res.MergeTasks != 1 {
		t.Errorf("status %s, %d merge tasks; want up_to_date and the lost one", res.Status, res.MergeTasks)
	}
	sameRows(t, dump(t, home), want)
	if res := mine(t, home, testOptions(), r.Dir).Repos[0]; res.MergeTasks != 0 || len(rawRows(t, home, `SELECT 1 FROM bootstrap_merges`)) != 2 {
		t.Errorf("a further run: %d merge tasks, decisions %q", res.MergeTasks, rawRows(t, home, `SELECT * FROM bootstrap_merges`))
	}
}

// A merge whose ancestry leaves the commits recorded (a row gone wrong
// here) has its branch listed by git: the same task and decision.
func TestMergesTheRecordedGraphCannotTellAreListedByGit(t *testing.T) {
	t.Parallel()
	m := gittest.ShopWithMergedBranch(t)
	home := newHome(t)
	mine(t, home, testOptions(), m.Dir)
	want := dump(t, home)
	for _, q := range []string{
		`DELETE FROM synthetic_targets WHERE commit = ?`, `DELETE FROM synthetic_tasks WHERE commit = ?`,
		`DELETE FROM bootstrap_merges WHERE commit = ?`,
	} {
		storetest.Exec(t, home, kb.Raw, q, m.Merge)
	}
	gone := strings.Repeat("0", 40)
	storetest.Exec(t, home, kb.Raw, `UPDATE bootstrap_commits SET parents = [?] WHERE commit = ?`, gone, m.Fork)
	if res := mine(t, home, testOptions(), m.Dir).Repos[0]; res.MergeTasks != 1 {
		t.Fatalf("%d merge tasks, want the one deleted", res.MergeTasks)
	}
	storetest.Exec(t, home, kb.Raw, `UPDATE bootstrap_commits SET parents = [] WHERE commit = ?`, m.Fork)
	sameRows(t, dump(t, home), want)
}

// Merged branches' parts read a few commits at a time decide every merge
// as one read of them all does: the same tasks, targets and decisions,
// with branches cut between reads. Not parallel: it sets partsPerRead.
func TestMergesReadInChunksDecideAlike(t *testing.T) {
	m := gittest.ShopWithMergedBranch(t)
	r := m.Repo
	for i, msg := range []string{"Round discounted prices to two decimals", "Say what rounding the shop does"} {
		branch := []string{"one", "two"}[i]
		r.Git("checkout", "-q", "-b", branch)
		r.Write("shop/discount.py", "def apply(price, rate):\n    return round(price * (1 - rate), "+[]string{"2", "3"}[i]+")\n")
		r.Commit(msg)
		r.Write("shop/README", msg+"\n")
		r.Commit("Note it: " + msg)
		r.Git("checkout", "-q", "main")
		r.Merge(branch, "Merge branch '"+branch+"'")
	}
	whole := newHome(t)
	mine(t, whole, testOptions(), r.Dir)
	want := dump(t, whole)
	if n := len(want["bootstrap_merges"]); n < 3 {
		t.Fatalf("%d merges decided, want 3", n)
	}
	defer func(n int) { partsPerRead = n }(partsPerRead)
	partsPerRead = 2
	cut := newHome(t)
	mine(t, cut, testOptions(), r.Dir)
	sameRows(t, dump(t, cut), want)
}

// A branch is decided from its rev-list lines and which of its commits
// are recorded and verified, in the order the outcomes are checked: its
// length, its shape, then its commits parents first (one not mined yet
// leaves it undecided, unless an earlier one was not verified).
func TestBranchOutcome(t *testing.T) {
	verified := map[string]bool{"a": true, "b": true, "c": true, "n": false}
	cases := []struct {
		name   string
		branch []string
		want   string
	}{
		{"one commit", []string{"a p"}, MergeBranchTooShort},
		{"longer than max parts", []string{"a p", "b a", "c b", "d c"}, MergeBranchTooLong},
		{"a line of verified commits", []string{"a p", "b a", "c b"}, MergeTask},
		{"a merge inside", []string{"a p", "b a x"}, MergeBranchNotALine},
		{"a root inside", []string{"a", "b a"}, MergeBranchNotALine},
		{"not each other's parents", []string{"a p", "b p"}, MergeBranchNotALine},
		{"a commit not verified", []string{"a p", "n a"}, MergePartNotVerified},
		{"a commit not mined yet", []string{"a p", "u a"}, ""},
		{"not mined after not verified", []string{"n p", "u n"}, MergePartNotVerified},
		{"not verified after not mined", []string{"u p", "n u"}, ""},
		{"not a line before not mined", []string{"u p", "v p"}, MergeBranchNotALine},
	}
	for _, c := range cases {
		if got := branchOutcome(verified, c.branch, 3); got != c.want {
			t.Errorf("%s: branchOutcome(%q) = %q, want %q", c.name, c.branch, got, c.want)
		}
	}
}

// The build keeps, for the merge phase, the version of each file a
// branch that can make a task leaves at its tip: not the versions its
// later commits replace, not the files it deletes, nothing of a branch
// too short or too long.
func TestBranchTipsWantTheFilesABranchLeaves(t *testing.T) {
	blob := func(c byte) string { return strings.Repeat(string(c), 40) }
	file := func(path string, to byte) history.FileChange {
		f := history.FileChange{Path: path, From: blob('0')}
		if to != 0 {
			f.To = blob(to)
		}
		return f
	}
	commits := []commitInfo{
		{Hash: "root"},
		{Hash: "b1", Parents: []string{"root"}, Files: []history.FileChange{file("x.py", '1'), file("y.py", '2'), file("z.py", '3')}},
		{Hash: "b2", Parents: []string{"b1"}, Files: []history.FileChange{file("x.py", '4'), file("y.py", 0)}},
		{Hash: "main", Parents: []string{"root"}, Files: []history.FileChange{file("m.py", '5')}},
		{Hash: "merge", Parents: []string{"main", "b2"}},
		{Hash: "c1", Parents: []string{"merge"}, Files: []history.FileChange{file("c.py", '6')}},
		{Hash: "merge2", Parents: []string{"merge", "c1"}}, // a branch of one commit
		{Hash: "l1", Parents: []string{"merge2"}, Files: []history.FileChange{file("l.py", '7')}},
		{Hash: "l2", Parents: []string{"l1"}, Files: []history.FileChange{file("l.py", '8')}},
		{Hash: "l3", Parents: []string{"l2"}, Files: []history.FileChange{file("l.py", '9')}},
		{Hash: "l4", Parents: []string{"l3"}, Files: []history.FileChange{file("l.py", 'a')}},
		{Hash: "merge3", Parents: []string{"merge2", "l4"}}, // longer than max parts
	}
	parents := map[string][]string{}
	for _, c := range commits {
		parents[c.Hash] = c.Parents
	}
	tips := newBranchTips(graphOf(parents, func(string) bool { return true }), commits, 3, 1<<20)
	var got []string
	for k := range tips.want {
		got = append(got, k.blob.String()[:1]+":"+k.language)
	}
	slices.Sort(got)
	if want := []string{"3:python", "4:python"}; !slices.Equal(got, want) {
		t.Errorf("wanted %q, want %q (z.py of b1, x.py of b2)", got, want)
	}
}
