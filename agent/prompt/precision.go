package prompt

import (
	"fmt"
	"strings"

	"github.com/cra-dev/cra/kb/schema"
)

// PrecisionSymbol is a symbol of a scoped file, as the model sees it.
type PrecisionSymbol struct {
	File          string
	QualifiedName string
	Kind          string
	Signature     string
}

// Key names the symbol in a precision response: "path:QualifiedName".
func (s PrecisionSymbol) Key() string { return s.File + ":" + s.QualifiedName }

// PrecisionInput is the precision stage's input.
type PrecisionInput struct {
	Task    string
	Symbols []PrecisionSymbol
}

// PrecisionResponse maps symbol keys to tiers; symbols left out are excluded.
type PrecisionResponse struct {
	Symbols map[string]string `json:"symbols"`
}

const precisionSystem = `You decide how much of each symbol a code change needs. Tiers: primary (the change edits it: show in full), supporting (calls it or is called by a primary symbol: show its signature and body summary), type_context (a type named by a primary signature: show its definition), excluded (not needed). Answer with a JSON object {"symbols": {"path:Qualified.name": "tier"}} naming every symbol that is not excluded.`

// PrecisionPrompt renders the precision stage's prompt.
func PrecisionPrompt(in PrecisionInput) Prompt {
	var b strings.Builder
	fmt.Fprintf(&b, "Task:\n%s\n\nSymbols:\n", strings.TrimSpace(in.Task))
	for _, s := range in.Symbols {
		fmt.Fprintf(&b, "- %s (%s): %s\n", s.Key(), s.Kind, strings.TrimSpace(s.Signature))
	}
	return Prompt{System: precisionSystem, User: b.String()}
}

// RenderPrecision is the exact response text ParsePrecision accepts for r
// (excluded symbols are left out; keys sorted).
func RenderPrecision(r PrecisionResponse) string {
	out := PrecisionResponse{Symbols: map[string]string{}}
	for k, v := range r.Symbols {
		if v != schema.TierExcluded {
			out.Symbols[k] = v
		}
	}
	return encodeJSON(out)
}

// ParsePrecision reads a precision response; an unknown tier is an error.
func ParsePrecision(text string) (PrecisionResponse, error) {
	var r PrecisionResponse
	if err := decodeJSON(text, &r); err != nil {
		return r, fmt.Errorf("precision: %w", err)
	}
	for k, v := range r.Symbols {
		switch v {
		case schema.TierPrimary, schema.TierSupporting, schema.TierTypeContext, schema.TierExcluded:
		default:
			return r, fmt.Errorf("precision: %s: unknown tier %q", k, v)
		}
	}
	if r.Symbols == nil {
		r.Symbols = map[string]string{}
	}
	return r, nil
}
