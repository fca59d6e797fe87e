package bootstrap

import (
	"regexp"

	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/ingest/resolve"
	"github.com/cra-dev/cra/kb/schema"
)

// typeKinds are the symbol kinds a signature can name as a type.
var typeKinds = map[string]bool{
	lang.KindClass: true, lang.KindInterface: true, lang.KindTypeAlias: true, lang.KindEnum: true,
}

// buildPrecision tiers every symbol of the touched files at the parent
// state: primary (innermost symbols overlapping a changed hunk), supporting
// (calls or is called by a primary symbol), type_context (a type named in a
// primary signature), excluded.
func buildPrecision(changes []*fileChange, goModules map[string]string) schema.PrecisionTarget {
	var files []*fileChange
	repo := resolve.Repo{GoModules: goModules}
	for _, c := range changes {
		if c.before != nil && !c.created {
			files = append(files, c)
			repo.Files = append(repo.Files, c.before.resolveFile(c.path))
		}
	}
	tier := make([][]string, len(files))
	var primarySigs []string
	for fi, c := range files {
		tier[fi] = make([]string, len(c.before.symbols))
		idx, _ := touchedSymbols(c, true)
		for i := range idx {
			tier[fi][i] = schema.DetailPrimary
			primarySigs = append(primarySigs, c.before.symbols[i].Signature)
		}
	}
	for _, e := range resolve.References(&repo) {
		from, to := &tier[e.FromFile][e.FromSymbol], &tier[e.ToFile][e.ToSymbol]
		switch {
		case *from == schema.DetailPrimary && *to == "":
			*to = schema.DetailSupporting
		case *to == schema.DetailPrimary && *from == "":
			*from = schema.DetailSupporting
		}
	}
	out := schema.PrecisionTarget{Symbols: []schema.PrecisionSymbol{}}
	for fi, c := range files {
		for i, s := range c.before.symbols {
			t := tier[fi][i]
			if t == "" && typeKinds[s.Kind] && namedIn(s.Name, primarySigs) {
				t = schema.DetailTypeContext
			}
			if t == "" {
				t = schema.DetailExcluded
			}
			out.Symbols = append(out.Symbols, schema.PrecisionSymbol{
				File: c.path, Name: s.Name, QualifiedName: qualifiedName(c.before.symbols, i), Kind: s.Kind,
				StartLine: s.StartLine, EndLine: s.EndLine, Signature: s.Signature, Tier: t,
			})
		}
	}
	return out
}

// namedIn reports whether name occurs as a whole word in one of sigs.
func namedIn(name string, sigs []string) bool {
	re := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`)
	for _, s := range sigs {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}
