package retrieval

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
)

func TestAssembleCutsLowestPriorityFirst(t *testing.T) {
	sym := func(file, name, sig string) SymbolCandidate {
		return SymbolCandidate{PrecisionSymbol: prompt.PrecisionSymbol{File: file, QualifiedName: name, Signature: sig}}
	}
	long := strings.Repeat("x", 400) // ~110 tokens a signature
	syms := []SymbolCandidate{
		sym("a.py", "f", "def f(): "+long), sym("a.py", "T", "class T: "+long), sym("b.py", "g", "def g(): "+long),
		sym("b.py", "h", "def h(): "+long), sym("b.py", "skip", "def skip(): "+long),
	}
	tiers := map[string]string{"a.py:f": "primary", "a.py:T": "type_context", "b.py:g": "supporting", "b.py:h": "supporting", "b.py:skip": "excluded"}
	kept := []string{"a.py", "b.py"}
	size := func(b llm.Budget, in prompt.PlanInput) int {
		p := prompt.PlanPrompt(prompt.PlanAtomic, in)
		return b.Estimate(p.System) + b.Estimate(p.User)
	}
	roomy := llm.Budget{ContextWindow: 100_000, ReservedTokens: 1000}
	all, err := Assemble("task", kept, syms, tiers, roomy)
	if err != nil || len(all.Cut) != 0 || len(all.Input.Files[0].Signatures) != 2 || len(all.Input.Files[1].Signatures) != 2 {
		t.Fatalf("roomy: %+v, %v; want every non-excluded symbol", all, err)
	}
	full := size(roomy, all.Input)
	// Room for all but about two signatures: the two supporting ones go, from the end.
	tight := llm.Budget{ContextWindow: full - 200 + 1000, ReservedTokens: 1000}
	got, err := Assemble("task", kept, syms, tiers, tight)
	if err != nil || !reflect.DeepEqual(got.Cut, []string{"b.py:h (supporting)", "b.py:g (supporting)"}) {
		t.Fatalf("tight: cut %v, %v", got.Cut, err)
	}
	if len(got.Input.Files) != 2 || len(got.Input.Files[1].Signatures) != 0 || size(tight, got.Input) > tight.ContextLimit() {
		t.Errorf("tight: %+v; b.py keeps its place with no signature, within the limit", got.Input.Files)
	}
	// Not even the primary symbol fits: over budget, no call.
	_, err = Assemble("task", kept, syms, tiers, llm.Budget{ContextWindow: 1100, ReservedTokens: 1000})
	if !errors.Is(err, llm.ErrOverBudget) {
		t.Errorf("tiny budget: %v, want ErrOverBudget", err)
	}
}
