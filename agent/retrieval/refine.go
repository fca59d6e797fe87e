package retrieval

import (
	"strings"

	"github.com/cra-dev/cra/kb/schema"
)

// refineLexical caps the files an error signature adds.
const refineLexical = 3

// Refine is retrieval's re-entry after an attempt failed for want of
// context: it turns the request's evidence into candidates that are not
// kept yet — the files it names, the files defining the symbols it names,
// the tests it names (a path or a module name), and the files whose words
// best match its error signatures — each with a reason starting
// "refinement:". The caller merges them into the context and logs the
// merge (call_type refinement_merge).
func Refine(g Graph, kept []schema.ScopeCandidate, req schema.RefinementRequest) ([]schema.ScopeCandidate, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	taken := map[string]bool{}
	for _, c := range kept {
		taken[c.Path] = true
	}
	var out []schema.ScopeCandidate
	add := func(paths []string, reason string) {
		for _, p := range paths {
			if !taken[p] {
				taken[p] = true
				syms := g.TopLevelSymbols(p)
				if syms == nil {
					syms = []string{}
				}
				out = append(out, schema.ScopeCandidate{Path: p, Tier: schema.TierSeed, Rank: len(out) + 1,
					Reason: "refinement: " + reason, Symbols: syms})
			}
		}
	}
	for _, f := range req.MissingFiles {
		if files := g.FilesNamed(f); len(files) <= maxMentionMatches {
			add(files, "names "+f)
		}
	}
	for _, s := range req.MissingSymbols {
		if files := g.Definers(s, maxMentionMatches); len(files) <= maxMentionMatches {
			add(files, "defines "+s)
		}
	}
	for _, tst := range req.MissingTests {
		files := g.FilesNamed(tst)
		if len(files) == 0 {
			files = g.ModulesNamed(strings.TrimSuffix(tst, "()"))
		}
		if len(files) <= maxMentionMatches {
			add(files, "test "+tst)
		}
	}
	if len(req.ErrorSignatures) > 0 {
		n := 0
		for _, m := range searchDocs(g.Documents(), Terms(req.ErrorSignatures...), 1) {
			if n == refineLexical {
				break
			}
			if !taken[m.path] {
				add([]string{m.path}, "matches the error: "+strings.Join(m.matched[:min(3, len(m.matched))], ", "))
				n++
			}
		}
	}
	return out, nil
}
