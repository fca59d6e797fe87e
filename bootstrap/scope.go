package bootstrap

import (
	"fmt"
	"sort"
	"time"

	"github.com/cra-dev/cra/kb/schema"
)

// Caps of tiered expansion: a scope prompt lists every candidate, so a core
// module imported by hundreds of files must not flood it.
const (
	maxDependencyCandidates = 30
	maxCoChangeCandidates   = 20
	maxCandidateSymbols     = 30
)

// scopeInput is what tiered expansion sees: the parent state, the task
// text, and the co-change history before the commit.
type scopeInput struct {
	snap     *snapshot
	task     string
	touched  []string // changed files that exist at the parent
	created  []string
	co       *coHistory
	at       time.Time // the commit's committer time: co-change looks before it
	minCount int
}

// buildScope runs tiered expansion from the seeds the task names (tier 1)
// to their direct dependencies (tier 2) and co-change neighbours (tier 3),
// and labels each candidate relevant iff the commit touched it.
func buildScope(in scopeInput) schema.ScopeTarget {
	snap := in.snap
	var cands []schema.ScopeCandidate
	taken := map[string]bool{}
	add := func(p string, tier int, reason string) {
		taken[p] = true
		cands = append(cands, schema.ScopeCandidate{Path: p, Tier: tier, Reason: reason})
	}

	// Tier 1: seeds, in order of mention.
	var seeds []string
	for _, m := range mentions(in.task, snap) {
		for _, p := range m.files {
			if !taken[p] {
				add(p, schema.TierSeed, m.reason)
				seeds = append(seeds, p)
			}
		}
	}

	// Co-change counts with the seeds, before the commit.
	co := map[string]int{}
	coSeed := map[string]string{}
	for _, s := range seeds {
		for p, n := range in.co.neighbours(s, in.at) {
			if n > co[p] {
				co[p], coSeed[p] = n, s
			}
		}
	}

	// Tier 2: files importing a seed or imported by one, most connected first.
	isSeed := map[int]bool{}
	for _, s := range seeds {
		isSeed[snap.index[s]] = true
	}
	links := map[string]int{}
	why := map[string]string{}
	for _, e := range snap.deps {
		var other, seed int
		var verb string
		switch {
		case isSeed[e.From] && !isSeed[e.To]:
			other, seed, verb = e.To, e.From, "imported by "
		case isSeed[e.To] && !isSeed[e.From]:
			other, seed, verb = e.From, e.To, "imports "
		default:
			continue
		}
		p := snap.repo.Files[other].Path
		links[p]++
		if why[p] == "" {
			why[p] = verb + snap.repo.Files[seed].Path
		}
	}
	for _, p := range ranked(links, co, maxDependencyCandidates) {
		add(p, schema.TierDependency, why[p])
	}

	// Tier 3: co-change neighbours above the minimum count that still exist.
	coCands := map[string]int{}
	for p, n := range co {
		if _, exists := snap.index[p]; exists && n >= in.minCount && !taken[p] {
			coCands[p] = n
		}
	}
	for _, p := range ranked(coCands, nil, maxCoChangeCandidates) {
		add(p, schema.TierCoChange, fmt.Sprintf("changed with %s in %d earlier commits", coSeed[p], coCands[p]))
	}

	touched := map[string]bool{}
	for _, p := range in.touched {
		touched[p] = true
	}
	reached := len(in.touched) > 0
	rank := map[int]int{}
	for i := range cands {
		c := &cands[i]
		rank[c.Tier]++
		c.Rank = rank[c.Tier]
		c.Relevant = touched[c.Path]
		c.Symbols = topLevelSymbols(snap.facts[snap.index[c.Path]])
	}
	for _, p := range in.touched {
		reached = reached && taken[p]
	}
	return schema.ScopeTarget{
		Candidates: nonNil(cands), Touched: nonNil(in.touched), Created: nonNil(in.created), Reached: reached,
	}
}

// ranked orders the keys of score by score, then tie, descending, then by
// path, and keeps the first n.
func ranked(score, tie map[string]int, n int) []string {
	keys := make([]string, 0, len(score))
	for k := range score {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if score[a] != score[b] {
			return score[a] > score[b]
		}
		if tie[a] != tie[b] {
			return tie[a] > tie[b]
		}
		return a < b
	})
	return keys[:min(n, len(keys))]
}

// topLevelSymbols names a file's top-level declarations, in file order.
func topLevelSymbols(f *facts) []string {
	out := []string{}
	if f == nil {
		return out
	}
	for _, s := range f.symbols {
		if s.Parent == -1 && len(out) < maxCandidateSymbols {
			out = append(out, s.Name)
		}
	}
	return out
}

// nonNil makes empty lists encode as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
