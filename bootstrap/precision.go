package bootstrap

import (
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/ingest/resolve"
	"github.com/cra-dev/cra/kb/schema"
)

// buildPrecision tiers every symbol of the touched files at the parent
// state with retrieval.DeterministicTiers, the primary symbols being the
// innermost ones a changed hunk overlaps.
func buildPrecision(changes []*fileChange, goModules map[string]string) schema.PrecisionTarget {
	var files []*fileChange
	repo := resolve.Repo{GoModules: goModules}
	for _, c := range changes {
		if c.before != nil && !c.created {
			files = append(files, c)
			repo.Files = append(repo.Files, c.before.resolveFile(c.path))
		}
	}
	// The symbols of all files in one list: offset[fi] is file fi's first.
	offset := make([]int, len(files))
	var syms []retrieval.TierSymbol
	var primary []bool
	for fi, c := range files {
		offset[fi] = len(syms)
		idx, _ := touchedSymbols(c, true)
		for i, s := range c.before.symbols {
			syms = append(syms, retrieval.TierSymbol{Name: s.Name, Kind: s.Kind, Signature: s.Signature})
			primary = append(primary, idx[i])
		}
	}
	var links []retrieval.SymbolLink
	for _, e := range resolve.References(&repo) {
		links = append(links, retrieval.SymbolLink{From: offset[e.FromFile] + e.FromSymbol, To: offset[e.ToFile] + e.ToSymbol})
	}
	tiers := retrieval.DeterministicTiers(syms, primary, links)
	out := schema.PrecisionTarget{Symbols: []schema.PrecisionSymbol{}}
	for fi, c := range files {
		for i, s := range c.before.symbols {
			out.Symbols = append(out.Symbols, schema.PrecisionSymbol{
				File: c.path, Name: s.Name, QualifiedName: qualifiedName(c.before.symbols, i), Kind: s.Kind,
				StartLine: s.StartLine, EndLine: s.EndLine, Signature: s.Signature, Tier: tiers[offset[fi]+i],
			})
		}
	}
	return out
}
