package retrieval

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cra-dev/cra/kb/schema"
)

// Limits cap tiered expansion: a scope prompt lists every candidate, so a
// core module imported by hundreds of files must not flood it.
type Limits struct {
	Dependencies int // tier 2 candidates at most
	CoChanges    int // tier 3 candidates at most
	Symbols      int // top-level symbols named per candidate
	// CoChangeMin is how many earlier commits must have changed a file
	// with a seed for it to be a tier 3 candidate ([bootstrap]
	// co_change_min_count).
	CoChangeMin int
	// Lexical caps tier 4; LexicalMinTerms is how many distinct task terms
	// a file must share with the task to be one.
	Lexical, LexicalMinTerms int
}

// DefaultLimits are the caps bootstrap's ground truth is built with.
var DefaultLimits = Limits{Dependencies: 30, CoChanges: 20, Symbols: 30, CoChangeMin: 2, Lexical: 8, LexicalMinTerms: 1}

// Expand runs tiered expansion for task over g: the seeds the task names
// (tier 1, in order of mention), their imports and importers (tier 2, most
// connected first, then most co-changed, then by path), and their
// co-change neighbours (tier 3, most co-changed first). Each candidate
// carries its tier, rank within the tier, why it was proposed and its
// top-level symbols; Relevant is left for the caller to judge.
func Expand(g Graph, task string, lim Limits) []schema.ScopeCandidate {
	return ExpandFrom(g, Mentions(task, g), task, lim)
}

// ExpandFrom is Expand from given seeds (tier 1, in order; each mention's
// reason says where it came from): the task's mentions merged with the
// model's task analysis at inference, the mentions alone in bootstrap.
// task still feeds the lexical tier.
func ExpandFrom(g Graph, seedMentions []Mention, task string, lim Limits) []schema.ScopeCandidate {
	return ExpandAll(g, seedMentions, task, lim).Candidates
}

// Expansion is what tiered expansion proposed: the candidates, and the
// files a tier proposed beyond its cap.
type Expansion struct {
	Candidates []schema.ScopeCandidate
	// Capped are the files tiers 2–4 proposed past their caps, best first
	// within a tier (at most MaxCappedPerTier each), with the rank they
	// would have had and why they were proposed. They are no candidates:
	// inference records each as a decision, so a cap that hides the file a
	// change needed shows in the logs.
	Capped []schema.ScopeCandidate
}

// MaxCappedPerTier bounds the capped files recorded per tier (a core
// module can have hundreds of importers, and the lexical tier matches
// every file sharing a word).
const MaxCappedPerTier = 50

// ExpandAll is ExpandFrom with the capped files too.
func ExpandAll(g Graph, seedMentions []Mention, task string, lim Limits) Expansion {
	var cands, capped []schema.ScopeCandidate
	taken := map[string]bool{}
	add := func(p string, tier int, reason string) {
		taken[p] = true
		cands = append(cands, schema.ScopeCandidate{Path: p, Tier: tier, Reason: reason})
	}
	// keep adds the first n of ranked paths as candidates and records the
	// next ones as capped.
	keep := func(paths []string, n, tier int, reason func(string) string) {
		for i, p := range paths {
			switch {
			case i < n:
				add(p, tier, reason(p))
			case i < n+MaxCappedPerTier:
				capped = append(capped, schema.ScopeCandidate{Path: p, Tier: tier, Rank: i + 1, Reason: reason(p)})
			}
		}
	}

	// Tier 1: seeds, in order of mention.
	var seeds []string
	for _, m := range seedMentions {
		for _, p := range m.Files {
			if !taken[p] {
				add(p, schema.TierSeed, m.Reason)
				seeds = append(seeds, p)
			}
		}
	}

	// Co-change counts with the seeds.
	co := map[string]int{}
	coSeed := map[string]string{}
	for _, s := range seeds {
		for p, n := range g.CoChanged(s) {
			if n > co[p] {
				co[p], coSeed[p] = n, s
			}
		}
	}

	// Tier 2: files importing a seed or imported by one, most connected first.
	isSeed := map[string]bool{}
	for _, s := range seeds {
		isSeed[s] = true
	}
	links := map[string]int{}
	why := map[string]string{}
	// Edges in path order, whatever order the graph keeps them in: the
	// first edge of a file is its reason, the same on every graph.
	edges := slices.Clone(g.Dependencies())
	slices.SortFunc(edges, func(a, b Edge) int { return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To)) })
	for _, e := range edges {
		var other, seed, verb string
		switch {
		case isSeed[e.From] && !isSeed[e.To]:
			other, seed, verb = e.To, e.From, "imported by "
		case isSeed[e.To] && !isSeed[e.From]:
			other, seed, verb = e.From, e.To, "imports "
		default:
			continue
		}
		links[other]++
		if why[other] == "" {
			why[other] = verb + seed
		}
	}
	keep(ranked(links, co), lim.Dependencies, schema.TierDependency, func(p string) string { return why[p] })

	// Tier 3: co-change neighbours above the minimum count that still exist.
	coCands := map[string]int{}
	for p, n := range co {
		if g.Exists(p) && n >= lim.CoChangeMin && !taken[p] {
			coCands[p] = n
		}
	}
	keep(ranked(coCands, nil), lim.CoChanges, schema.TierCoChange, func(p string) string {
		return fmt.Sprintf("changed with %s in %d earlier commits", coSeed[p], coCands[p])
	})

	// Tier 4: files whose path, symbols and docstrings share words with the
	// task (BM25), best first.
	if lim.Lexical > 0 {
		var paths []string
		words := map[string]string{}
		for _, m := range searchDocs(g.Documents(), Terms(task), lim.LexicalMinTerms) {
			if len(paths) == lim.Lexical+MaxCappedPerTier {
				break
			}
			if !taken[m.path] {
				paths = append(paths, m.path)
				words[m.path] = strings.Join(m.matched[:min(3, len(m.matched))], ", ")
			}
		}
		keep(paths, lim.Lexical, schema.TierLexical, func(p string) string { return "shares words with the task: " + words[p] })
	}

	rank := map[int]int{}
	for i := range cands {
		c := &cands[i]
		rank[c.Tier]++
		c.Rank = rank[c.Tier]
		c.Symbols = g.TopLevelSymbols(c.Path)
		if len(c.Symbols) > lim.Symbols {
			c.Symbols = c.Symbols[:lim.Symbols]
		}
		if c.Symbols == nil {
			c.Symbols = []string{}
		}
	}
	return Expansion{Candidates: cands, Capped: capped}
}

// ranked orders the keys of score by score, then tie, descending, then by
// path.
func ranked(score, tie map[string]int) []string {
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
	return keys
}
