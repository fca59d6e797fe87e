package retrieval

import (
	"fmt"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/kb/schema"
)

// Assembled is the plan pass's context package: the kept files, each with
// the signatures of its symbols that made it in, and what was cut to fit.
type Assembled struct {
	Input prompt.PlanInput
	// Cut names what was left out to fit the budget, in the order it went
	// ("path:Qualified.name (tier)").
	Cut []string
}

// cutOrder is which symbols go first when the context is too large:
// supporting context, then type definitions; primary symbols never.
var cutOrder = []string{schema.DetailSupporting, schema.DetailTypeContext}

// Assemble builds the plan prompt's input from the kept files and the
// symbols the precision stage did not exclude, within the budget's context
// limit (context_window − reserved_tokens): the lowest priority goes first
// (supporting symbols, then type context, each from the end), and a file
// keeps its place with no signature left. If the primary symbols alone do
// not fit, the error wraps llm.ErrOverBudget and no call should be made.
func Assemble(task string, kept []string, syms []SymbolCandidate, tiers map[string]string, b llm.Budget) (Assembled, error) {
	included := make([]bool, len(syms))
	for i, s := range syms {
		included[i] = tiers[s.Key()] != "" && tiers[s.Key()] != schema.DetailExcluded
	}
	build := func() prompt.PlanInput {
		in := prompt.PlanInput{Task: task}
		at := map[string]int{}
		for _, p := range kept {
			at[p] = len(in.Files)
			in.Files = append(in.Files, prompt.PlanContext{Path: p})
		}
		for j, s := range syms {
			if fi, ok := at[s.File]; ok && included[j] {
				in.Files[fi].Signatures = append(in.Files[fi].Signatures, s.Signature)
			}
		}
		return in
	}
	fits := func(in prompt.PlanInput) bool {
		p := prompt.PlanPrompt(prompt.PlanAtomic, in)
		return b.Estimate(p.System)+b.Estimate(p.User) <= b.ContextLimit()
	}
	var out Assembled
	for _, tier := range cutOrder {
		for i := len(syms) - 1; i >= 0; i-- {
			if fits(build()) {
				out.Input = build()
				return out, nil
			}
			if included[i] && tiers[syms[i].Key()] == tier {
				included[i] = false
				out.Cut = append(out.Cut, syms[i].Key()+" ("+tier+")")
			}
		}
	}
	out.Input = build()
	if !fits(out.Input) {
		p := prompt.PlanPrompt(prompt.PlanAtomic, out.Input)
		return out, fmt.Errorf("assemble: %w: the task, the kept files and their primary symbols need ~%d tokens, the context may use %d",
			llm.ErrOverBudget, b.Estimate(p.System)+b.Estimate(p.User), b.ContextLimit())
	}
	return out, nil
}
