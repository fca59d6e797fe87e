package bootstrap

import (
	"sort"
	"time"
)

// coHistory answers co-change questions that look only backwards in time:
// how often did a file change together with another in commits committed
// before a given instant. Merges and commits touching more than the
// co-change limit are left out, as cra index leaves them out: the rule is
// also written in SQL over the index (ingest/derive.go), and
// TestCoChangeRuleAgreesBetweenIndexAndBootstrap holds the two together.
type coHistory struct {
	commits []coCommit
	byPath  map[string][]int // indexes into commits, in time order
}

// coCommit is one non-merge commit's changed paths and committer time.
type coCommit struct {
	at    time.Time
	files []string
}

func newCoHistory(commits []coCommit, maxFiles int) *coHistory {
	h := &coHistory{byPath: map[string][]int{}}
	for _, c := range commits {
		if len(c.files) >= 2 && len(c.files) <= maxFiles {
			h.commits = append(h.commits, c)
		}
	}
	sort.SliceStable(h.commits, func(i, j int) bool { return h.commits[i].at.Before(h.commits[j].at) })
	for i, c := range h.commits {
		for _, f := range c.files {
			h.byPath[f] = append(h.byPath[f], i)
		}
	}
	return h
}

// neighbours counts, for every other path, the commits before `before` that
// changed it together with p.
func (h *coHistory) neighbours(p string, before time.Time) map[string]int {
	idx := h.byPath[p]
	n := sort.Search(len(idx), func(i int) bool { return !h.commits[idx[i]].at.Before(before) })
	counts := map[string]int{}
	for _, i := range idx[:n] {
		for _, f := range h.commits[i].files {
			if f != p {
				counts[f]++
			}
		}
	}
	return counts
}
