package kb

import (
	"context"
	"slices"
	"testing"

	"github.com/cra-dev/cra/internal/config"
)

// The split rule on both sides of each of its comparisons: the hash
// against the fraction (just under, at, just over), a held-out repository
// whatever the hash, and a merged branch's part following its merge commit
// whichever side its own hash is on. Flipping `<`, making it `<=`,
// ignoring the held-out repositories or the group each fails a row.
func TestSplitRule(t *testing.T) {
	t.Parallel()
	const repo, other = "/r", "/o"
	h := func(unit string) float64 { return UnitHash(repo, unit) }
	// part's own hash and its merge's fall on either side of mid.
	part, merge := "p1", "m1"
	if h(part) == h(merge) {
		t.Fatal("part and merge hash alike")
	}
	mid := (h(part) + h(merge)) / 2
	rule := func(v float64, holdout ...string) SplitRule {
		r := NewSplitRule(config.Curate{ValidationFraction: v}, holdout)
		r.groups = map[string]string{repo + "\x00" + part: merge}
		return r
	}
	side := func(below bool) string {
		if below {
			return SplitValidation
		}
		return SplitTrain
	}
	for _, tt := range []struct {
		name, repo, unit string
		rule             SplitRule
		want             string
	}{
		{"hash under the fraction", repo, "c1", rule(h("c1") + 1e-9), SplitValidation},
		{"hash at the fraction", repo, "c1", rule(h("c1")), SplitTrain},
		{"hash over the fraction", repo, "c1", rule(h("c1") - 1e-9), SplitTrain},
		{"no validation", repo, "c1", rule(0), SplitTrain},
		{"held-out repository, no validation", repo, "c1", rule(0, repo), SplitValidation},
		{"held-out repository, hash over", repo, "c1", rule(h("c1")-1e-9, repo), SplitValidation},
		{"another repository held out", repo, "c1", rule(0, other), SplitTrain},
		{"a part follows its merge", repo, part, rule(mid), side(h(merge) < mid)},
		{"the merge itself", repo, merge, rule(mid), side(h(merge) < mid)},
		{"the same commit in another repository", other, part, rule(1), SplitValidation},
		{"the same commit elsewhere, its own hash", other, part, rule(UnitHash(other, part)), SplitTrain},
	} {
		if got := tt.rule.Split(tt.repo, tt.unit); got != tt.want {
			t.Errorf("%s: %s@%s is in %s, want %s", tt.name, tt.repo, tt.unit, got, tt.want)
		}
	}
	// The part's own hash alone would put it in the other split.
	r := rule(mid)
	r.groups = nil
	if r.Split(repo, part) == side(h(merge) < mid) {
		t.Fatal("the part's own hash agrees with its merge's: the group row proves nothing")
	}
	if got := rule(mid).Group(repo, part); got != merge {
		t.Errorf("Group(%s) = %s, want %s", part, got, merge)
	}
	if got := rule(mid).Group(other, part); got != part {
		t.Errorf("Group in another repository = %s, want the commit itself", got)
	}
}

// [curate] gives the fraction and the held-out repositories; an override
// (--holdout-repos, a plan's) replaces the list, an empty one does not.
func TestNewSplitRule(t *testing.T) {
	t.Parallel()
	c := config.Curate{ValidationFraction: 0.2, HoldoutRepos: []string{"/b", "/a/../a"}}
	for _, tt := range []struct {
		name     string
		override []string
		want     []string
	}{
		{"config", nil, []string{"/a", "/b"}},
		{"empty override", []string{}, []string{"/a", "/b"}},
		{"override", []string{"/c"}, []string{"/c"}},
	} {
		r := NewSplitRule(c, tt.override)
		if got := r.HoldoutRepos(); !slices.Equal(got, tt.want) || r.Validation() != 0.2 {
			t.Errorf("%s: holdout %q, validation %g; want %q, 0.2", tt.name, got, r.Validation(), tt.want)
		}
		for _, repo := range tt.want {
			if !r.HeldOutRepo(repo) || r.Split(repo, "x") != SplitValidation {
				t.Errorf("%s: %s not held out", tt.name, repo)
			}
		}
	}
}

// The groups come from the raw store: a merge task's branch, from its
// second parent back to where the branch started (the task's parent, not
// itself in the group); a merge that is no task groups nothing; a commit
// in two merged branches joins them under the smaller merge commit; the
// same commit in another repository is its own.
func TestSplitRuleLoadsMergedBranches(t *testing.T) {
	t.Parallel()
	dir := initHome(t)
	ctx := context.Background()
	commits := []struct{ repo, commit, parents string }{
		{"/r", "root", "[]"},
		{"/r", "fork", "['root']"},
		{"/r", "b1", "['fork']"},
		{"/r", "b2", "['b1']"},
		{"/r", "main1", "['fork']"},
		{"/r", "m1", "['main1', 'b2']"}, // merges b1, b2
		{"/r", "b3", "['b2']"},
		{"/r", "m2", "['m1', 'b3']"}, // its task starts at fork: b1, b2, b3
		{"/r", "x1", "['m2']"},
		{"/r", "x2", "['x1']"},
		{"/r", "m0", "['m2', 'x2']"}, // no task
		{"/s", "b1", "['fork']"},
	}
	err := WithWriter(ctx, dir, Raw, Options{}, func(w Writer) error {
		for _, c := range commits {
			if _, err := w.Conn.ExecContext(ctx, `INSERT INTO bootstrap_commits (run_id, repo_path, commit, parents, committed_at, files,
				insertions, deletions, outcome) VALUES (1, ?, ?, `+c.parents+`, now(), [], 0, 0, 'verified')`, c.repo, c.commit); err != nil {
				return err
			}
		}
		for _, m := range []string{"m1", "m2"} {
			if _, err := w.Conn.ExecContext(ctx, `INSERT INTO synthetic_tasks (id, run_id, repo_path, commit, parent, author, committed_at,
				message, task, files_changed, insertions, deletions, created_at) VALUES (?, 1, '/r', ?, 'fork', 'a', now(), 'm', 'm', 1, 1, 1, now())`,
				m, m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, dir, Raw, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rule, err := NewSplitRule(config.Curate{}, nil).WithGroups(ctx, s.DB)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ repo, commit, group string }{
		{"/r", "b1", "m1"}, {"/r", "b2", "m1"}, {"/r", "b3", "m1"}, {"/r", "m1", "m1"}, {"/r", "m2", "m1"},
		{"/r", "fork", "fork"}, {"/r", "main1", "main1"}, {"/r", "root", "root"},
		{"/r", "x1", "x1"}, {"/r", "x2", "x2"}, {"/r", "m0", "m0"},
		{"/s", "b1", "b1"},
	} {
		if got := rule.Group(tt.repo, tt.commit); got != tt.group {
			t.Errorf("group of %s@%s = %s, want %s", tt.repo, tt.commit, got, tt.group)
		}
	}
	// Widened keeps the groups, raises the fraction, adds repositories and
	// never narrows.
	wide := rule.Widened(0.5, []string{"/s"}).Widened(0.2, nil)
	if wide.Group("/r", "b3") != "m1" || wide.Validation() != 0.5 || !wide.HeldOutRepo("/s") || wide.HeldOutRepo("/r") || rule.HeldOutRepo("/s") {
		t.Errorf("widened: group of b3 %s, validation %g, /s held out %v, /r %v, the original's /s %v; want m1, 0.5, true, false, false",
			wide.Group("/r", "b3"), wide.Validation(), wide.HeldOutRepo("/s"), wide.HeldOutRepo("/r"), rule.HeldOutRepo("/s"))
	}
}
