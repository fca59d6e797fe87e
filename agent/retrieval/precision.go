package retrieval

import (
	"context"
	"errors"
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
	Name               string
	StartLine, EndLine int
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
		name := qualify(s, byID)
		out = append(out, SymbolCandidate{FileID: s.FileID, SymbolID: s.ID, Name: s.Name, StartLine: s.StartLine, EndLine: s.EndLine,
			PrecisionSymbol: prompt.PrecisionSymbol{File: s.FilePath, QualifiedName: name, Kind: s.Kind, Signature: s.Signature}})
	}
	return out
}

// qualify is a symbol's name qualified by its parents, or by its receiver
// for a Go method — as bootstrap's ground truth names it (Command.Execute),
// so a precision prompt names a symbol the same at inference and in
// training.
func qualify(s kb.Symbol, byID map[int64]kb.Symbol) string {
	if s.ParentID == nil {
		if s.Receiver != "" {
			return s.Receiver + "." + s.Name
		}
		return s.Name
	}
	parent, ok := byID[*s.ParentID]
	if !ok {
		return s.Name
	}
	return qualify(parent, byID) + "." + s.Name
}

// GuessTiers is the precision stage's deterministic first guess, by the
// rule bootstrap's ground truth follows (DeterministicTiers): the symbols
// the task names are primary (named: their names, as mentions and the task
// analysis found them), the symbols linked to them by refs supporting, the
// types their signatures name type context.
func GuessTiers(cands []SymbolCandidate, named map[string]bool, refs []kb.SymbolReference) map[string]string {
	syms := make([]TierSymbol, len(cands))
	primary := make([]bool, len(cands))
	at := map[int64]int{}
	for i, c := range cands {
		syms[i] = TierSymbol{Name: c.Name, Kind: c.Kind, Signature: c.Signature}
		primary[i] = named[c.Name] || named[c.QualifiedName]
		at[c.SymbolID] = i
	}
	var links []SymbolLink
	for _, r := range refs {
		from, ok1 := at[r.Caller]
		to, ok2 := at[r.Callee]
		if ok1 && ok2 {
			links = append(links, SymbolLink{From: from, To: to})
		}
	}
	out := map[string]string{}
	for i, t := range DeterministicTiers(syms, primary, links) {
		out[cands[i].Key()] = t
	}
	return out
}

// PrecisionResult is the precision stage's outcome: each symbol's tier
// (excluded when the model left it out) and a decision per symbol.
type PrecisionResult struct {
	Tiers     map[string]string // "path:Qualified.name" → tier
	Decisions []kb.Decision
	// Guessed is true when the model's answer stayed unusable and the
	// deterministic guess stands in for it.
	Guessed bool
}

// Precision asks the model how much of each symbol the change needs (the
// precision prompt curate trains on), asking once more after an unusable
// answer. Symbols the answer leaves out are excluded; keys it invents are
// ignored. Each decision's reason also names the deterministic guess; when
// the answer stays unusable the guess is used, and said so.
func Precision(ctx context.Context, client llm.Client, taskID, task string, cands []SymbolCandidate, guess map[string]string) (*PrecisionResult, error) {
	in := prompt.PrecisionInput{Task: task}
	for _, c := range cands {
		in.Symbols = append(in.Symbols, c.PrecisionSymbol)
	}
	res := &PrecisionResult{Tiers: map[string]string{}}
	resp, err := Ask(ctx, client, taskID, schema.StagePrecision, prompt.PrecisionPrompt(in), prompt.ParsePrecision)
	var unusable *UnusableAnswerError
	switch {
	case errors.As(err, &unusable):
		res.Guessed = true
	case err != nil:
		return nil, err
	}
	now := time.Now().UTC()
	for _, c := range cands {
		g := guess[c.Key()]
		if g == "" {
			g = schema.TierExcluded
		}
		tier, reason := g, "deterministic guess (the model's answer was unusable)"
		if !res.Guessed {
			var ok bool
			if tier, ok = resp.Symbols[c.Key()]; !ok {
				tier = schema.TierExcluded
			}
			reason = "tiered by the model (deterministic guess: " + g + ")"
		}
		res.Tiers[c.Key()] = tier
		id := c.SymbolID
		res.Decisions = append(res.Decisions, kb.Decision{TaskID: taskID, Stage: schema.StagePrecision, FileID: c.FileID,
			SymbolID: &id, DetailLevel: tier, Included: tier != schema.TierExcluded, Reason: reason, At: now})
	}
	return res, nil
}
