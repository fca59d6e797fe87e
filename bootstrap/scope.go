package bootstrap

import (
	"time"

	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/kb/schema"
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

// buildScope runs retrieval's tiered expansion over the parent state and
// labels each candidate relevant iff the commit touched it.
func buildScope(in scopeInput) schema.ScopeTarget {
	lim := retrieval.DefaultLimits
	lim.CoChangeMin = in.minCount
	cands := retrieval.Expand(snapshotGraph{in.snap, in.co, in.at}, in.task, lim)
	touched := map[string]bool{}
	for _, p := range in.touched {
		touched[p] = true
	}
	taken := map[string]bool{}
	for i := range cands {
		cands[i].Relevant = touched[cands[i].Path]
		taken[cands[i].Path] = true
	}
	reached := len(in.touched) > 0
	for _, p := range in.touched {
		reached = reached && taken[p]
	}
	return schema.ScopeTarget{
		Candidates: nonNil(cands), Touched: nonNil(in.touched), Created: nonNil(in.created), Reached: reached,
	}
}

// snapshotGraph is a commit's parent state as retrieval sees it: the
// snapshot's files, facts and import edges, and the co-change history of
// the commits committed before the commit (nothing from the future).
type snapshotGraph struct {
	snap *snapshot
	co   *coHistory
	at   time.Time
}

func (g snapshotGraph) FilesNamed(tok string) []string { return g.snap.FilesNamed(tok) }
func (g snapshotGraph) Definers(name string, limit int) []string {
	return g.snap.Definers(name, limit)
}
func (g snapshotGraph) ModulesNamed(name string) []string    { return g.snap.ModulesNamed(name) }
func (g snapshotGraph) CoChanged(path string) map[string]int { return g.co.neighbours(path, g.at) }
func (g snapshotGraph) Exists(path string) bool {
	_, ok := g.snap.index[path]
	return ok
}

func (g snapshotGraph) Dependencies() []retrieval.Edge {
	files := g.snap.repo.Files
	out := make([]retrieval.Edge, len(g.snap.deps))
	for i, e := range g.snap.deps {
		out[i] = retrieval.Edge{From: files[e.From].Path, To: files[e.To].Path}
	}
	return out
}

// TopLevelSymbols names a file's top-level declarations, in file order.
func (g snapshotGraph) TopLevelSymbols(path string) []string {
	i, ok := g.snap.index[path]
	if !ok || g.snap.facts[i] == nil {
		return nil
	}
	var out []string
	for _, s := range g.snap.facts[i].symbols {
		if s.Parent == -1 {
			out = append(out, s.Name)
		}
	}
	return out
}

// Documents are the parsed source files of the parent state, in path order.
func (g snapshotGraph) Documents() []retrieval.Document {
	var out []retrieval.Document
	for i, f := range g.snap.repo.Files {
		if fa := g.snap.facts[i]; fa != nil && fa.failed == "" {
			out = append(out, retrieval.Document{Path: f.Path, Text: g.snap.texts.of(f.Path, fa)})
		}
	}
	return out
}

// docTexts are the words of each path's document as the lexical tier
// reads them (its path's, then its facts'), kept from one commit to the
// next while the path's facts stay the same: most files of a state are
// unchanged since the last commit a worker built. One worker's, not safe
// for concurrent use; what it returns is not to be changed.
type docTexts map[string]docText

type docText struct {
	facts *facts
	text  []string
}

func (d docTexts) of(path string, f *facts) []string {
	if t, ok := d[path]; ok && t.facts == f {
		return t.text
	}
	text := append(retrieval.Terms(path), f.terms...)
	if d != nil {
		d[path] = docText{f, text}
	}
	return text
}

// nonNil makes empty lists encode as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
