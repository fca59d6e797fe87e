package retrieval

import (
	"context"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// SymbolCandidate is a symbol of a kept file the precision stage tiers.
type SymbolCandidate struct {
	FileID, SymbolID int64
	prompt.PrecisionSymbol
}

// SymbolCandidates are the symbols of a kept file as the precision prompt
// names them: qualified by their enclosing symbols (Class.method), in the
// order given (the file's order).
func SymbolCandidates(syms []kb.Symbol) []SymbolCandidate {
	byID := make(map[int64]kb.Symbol, len(syms))
	for _, s := range syms {
		byID[s.ID] = s
	}
	out := make([]SymbolCandidate, 0, len(syms))
	for _, s := range syms {
		name := s.Name
		for p := s.ParentID; p != nil; {
			parent, ok := byID[*p]
			if !ok {
				break
			}
			name = parent.Name + "." + name
			p = parent.ParentID
		}
		out = append(out, SymbolCandidate{FileID: s.FileID, SymbolID: s.ID, PrecisionSymbol: prompt.PrecisionSymbol{
			File: s.FilePath, QualifiedName: name, Kind: s.Kind, Signature: s.Signature}})
	}
	return out
}

// PrecisionResult is the precision stage's outcome: each symbol's tier
// (excluded when the model left it out) and a decision per symbol.
type PrecisionResult struct {
	Tiers     map[string]string // "path:Qualified.name" → tier
	Decisions []kb.Decision
}

// Precision asks the model how much of each symbol the change needs (the
// precision prompt curate trains on), asking once more after an unusable
// answer. Symbols the answer leaves out are excluded; keys it invents are
// ignored.
func Precision(ctx context.Context, client llm.Client, taskID, task string, cands []SymbolCandidate) (*PrecisionResult, error) {
	in := prompt.PrecisionInput{Task: task}
	for _, c := range cands {
		in.Symbols = append(in.Symbols, c.PrecisionSymbol)
	}
	resp, err := Ask(ctx, client, taskID, schema.StagePrecision, prompt.PrecisionPrompt(in), prompt.ParsePrecision)
	if err != nil {
		return nil, err
	}
	res := &PrecisionResult{Tiers: map[string]string{}}
	now := time.Now().UTC()
	for _, c := range cands {
		tier, ok := resp.Symbols[c.Key()]
		if !ok {
			tier = schema.DetailExcluded
		}
		res.Tiers[c.Key()] = tier
		id := c.SymbolID
		res.Decisions = append(res.Decisions, kb.Decision{TaskID: taskID, Stage: schema.StagePrecision, FileID: c.FileID,
			SymbolID: &id, DetailLevel: tier, Included: tier != schema.DetailExcluded, Reason: "tiered by the model", At: now})
	}
	return res, nil
}
