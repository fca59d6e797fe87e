package kb

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cra-dev/cra/internal/config"
)

// SplitRule is the one split rule, shared by curate-data (which split an
// example goes to), cra distill (the split its dataset stores) and cra
// eval (which tasks are held out), so a task held out from training is
// never in a train split by any path. A unit — a task's commit, or a
// logged run without one — goes to validation when a hash of its
// repository and its group falls under the validation fraction, so every
// example of a unit lands in one split; a held-out repository goes to
// validation whole. A merged branch's task and the commits it is made of
// (each one a task of its own) are one group, keyed by the merge commit:
// a part can never train while its merge task is evaluated, or the other
// way round.
//
// Build it with NewSplitRule from [curate], then WithGroups once from the
// raw store; the zero value puts everything in train.
type SplitRule struct {
	validation float64
	holdout    map[string]bool
	groups     map[string]string // repo NUL member commit → its group's commit
}

// NewSplitRule is the rule of c ([curate] validation_fraction and
// holdout_repos); holdoutRepos, when not empty (--holdout-repos, or a
// training plan's), replaces c's list. Paths are canonical, as stored.
func NewSplitRule(c config.Curate, holdoutRepos []string) SplitRule {
	if len(holdoutRepos) == 0 {
		holdoutRepos = c.HoldoutRepos
	}
	r := SplitRule{validation: c.ValidationFraction, holdout: map[string]bool{}}
	for _, p := range holdoutRepos {
		r.holdout[CanonicalPath(p)] = true
	}
	return r
}

// Validation is the share of units put in validation.
func (r SplitRule) Validation() float64 { return r.validation }

// HoldoutRepos are the repositories held out whole, sorted.
func (r SplitRule) HoldoutRepos() []string { return slices.Sorted(maps.Keys(r.holdout)) }

// HeldOutRepo reports whether repo goes to validation whole.
func (r SplitRule) HeldOutRepo(repo string) bool { return r.holdout[repo] }

// Widened is r with its validation fraction raised to at least fraction
// and repos held out besides its own, its groups kept: a training plan
// widens the configured rule this way, never narrows it.
func (r SplitRule) Widened(fraction float64, repos []string) SplitRule {
	w := SplitRule{validation: max(r.validation, fraction), holdout: maps.Clone(r.holdout), groups: r.groups}
	if w.holdout == nil {
		w.holdout = map[string]bool{}
	}
	for _, p := range repos {
		w.holdout[CanonicalPath(p)] = true
	}
	return w
}

// Group is the commit whose split key unit carries in repo: the merge
// commit of the merged branch it is part of, else unit itself.
func (r SplitRule) Group(repo, unit string) string {
	if g, ok := r.groups[repo+"\x00"+unit]; ok {
		return g
	}
	return unit
}

// Split is the split of unit (a commit, or a run id) of repo.
func (r SplitRule) Split(repo, unit string) string {
	if r.holdout[repo] {
		return SplitValidation
	}
	if UnitHash(repo, r.Group(repo, unit)) < r.validation {
		return SplitValidation
	}
	return SplitTrain
}

// WithGroups is r with the merged branches of the raw store q loaded: each
// merge task's commit with the commits of its branch (from the second
// parent back along first parents to the task's parent, where the branch
// started). A commit in two such branches joins them into one group,
// keyed by the smallest merge commit among them, so the groups do not
// depend on the order they are read in.
func (r SplitRule) WithGroups(ctx context.Context, q Querier) (SplitRule, error) {
	rows, err := q.QueryContext(ctx, `WITH RECURSIVE merges AS (
			SELECT DISTINCT k.repo_path, k.commit, k.parent AS fork, c.parents[2] AS tip
			FROM synthetic_tasks k JOIN bootstrap_commits c ON c.repo_path = k.repo_path AND c.commit = k.commit
			WHERE len(c.parents) = 2),
		walk(repo_path, merge, fork, commit, depth) AS (
			SELECT repo_path, commit, fork, tip, 1 FROM merges
			UNION
			SELECT w.repo_path, w.merge, w.fork, c.parents[1], w.depth + 1
			FROM walk w JOIN bootstrap_commits c ON c.repo_path = w.repo_path AND c.commit = w.commit
			WHERE len(c.parents) = 1 AND c.parents[1] <> w.fork AND w.depth < 10000)
		SELECT DISTINCT repo_path, merge, commit FROM walk ORDER BY ALL`)
	if err != nil {
		return r, fmt.Errorf("read the merged branches for the split: %w", err)
	}
	defer rows.Close()
	// Union-find over repo NUL commit, the smaller merge commit the root.
	root := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		p, ok := root[x]
		if !ok || p == x {
			return x
		}
		p = find(p)
		root[x] = p
		return p
	}
	merges := map[string]bool{}
	for rows.Next() {
		var repo, merge, member string
		if err := rows.Scan(&repo, &merge, &member); err != nil {
			return r, err
		}
		m, p := repo+"\x00"+merge, repo+"\x00"+member
		merges[m] = true
		a, b := find(m), find(p)
		if a == b {
			continue
		}
		// a is a merge's root, so a merge (the smallest of its group);
		// b is one too when the member was in another branch already.
		if merges[b] && b < a {
			a, b = b, a
		}
		root[a], root[b] = a, a
	}
	if err := rows.Err(); err != nil {
		return r, err
	}
	r.groups = make(map[string]string, len(root))
	for x := range root {
		_, commit, _ := strings.Cut(find(x), "\x00")
		r.groups[x] = commit
	}
	return r, nil
}

// UnitHash maps its parts to [0, 1) deterministically.
func UnitHash(parts ...string) float64 {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return float64(binary.BigEndian.Uint64(h.Sum(nil))>>11) / (1 << 53)
}
