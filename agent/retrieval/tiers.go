package retrieval

import (
	"regexp"

	"github.com/cra-dev/cra/kb/schema"
)

// TierSymbol is a symbol as the deterministic tiers read it.
type TierSymbol struct {
	Name, Kind, Signature string
}

// SymbolLink is a resolved reference: symbol From names symbol To (indexes
// into the tiered list; a call, an inheritance or a type reference).
type SymbolLink struct{ From, To int }

// TypeKinds are the symbol kinds a signature can name as a type (the
// ingest/lang kinds of the same names; a bootstrap test checks they agree).
var TypeKinds = map[string]bool{"class": true, "interface": true, "type_alias": true, "enum": true}

// DeterministicTiers tiers symbols from the primary ones, the rule both
// bootstrap's ground truth and inference's first guess follow: primary as
// given (bootstrap: the innermost symbols a changed hunk overlaps;
// inference: the symbols the task names), supporting when a link joins it
// to a primary symbol either way, type_context when it is a type named as
// a whole word in a primary signature, excluded otherwise.
func DeterministicTiers(syms []TierSymbol, primary []bool, links []SymbolLink) []string {
	tier := make([]string, len(syms))
	var primarySigs []string
	for i := range syms {
		if primary[i] {
			tier[i] = schema.TierPrimary
			primarySigs = append(primarySigs, syms[i].Signature)
		}
	}
	for _, l := range links {
		from, to := &tier[l.From], &tier[l.To]
		switch {
		case *from == schema.TierPrimary && *to == "":
			*to = schema.TierSupporting
		case *to == schema.TierPrimary && *from == "":
			*from = schema.TierSupporting
		}
	}
	for i, s := range syms {
		if tier[i] == "" && TypeKinds[s.Kind] && namedIn(s.Name, primarySigs) {
			tier[i] = schema.TierTypeContext
		}
		if tier[i] == "" {
			tier[i] = schema.TierExcluded
		}
	}
	return tier
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
