package retrieval

import (
	"fmt"
	"sort"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
)

// Assemble fits the context package (prompt.BuildContext) into the
// budget's context limit
// (context_window − reserved_tokens), measured on the prompt render builds
// from it: it cuts the fewest items of the cut order that make it fit
// (prompt.CutOrder). If the primary symbols alone do not fit, the error wraps
// llm.ErrOverBudget and no call should be made.
func Assemble(facts []prompt.FileFacts, retry string, b llm.Budget, render func(prompt.Package) prompt.Prompt) (prompt.Package, error) {
	size := func(p prompt.Package) int {
		pr := render(p)
		return b.Estimate(pr.System) + b.Estimate(pr.User)
	}
	all, _ := prompt.BuildContext(facts, retry, 0)
	n := prompt.Cuttable(facts, retry)
	// Cutting more never makes the prompt larger: the first count that
	// fits is found by bisection.
	k := sort.Search(n+1, func(k int) bool {
		p, _ := prompt.BuildContext(facts, retry, k)
		return size(p) <= b.ContextLimit()
	})
	if k > n {
		least, _ := prompt.BuildContext(facts, retry, n)
		return least, fmt.Errorf("assemble: %w: the task, the kept files and their primary symbols need ~%d tokens, the context may use %d",
			llm.ErrOverBudget, size(least), b.ContextLimit())
	}
	if k == 0 {
		return all, nil
	}
	p, _ := prompt.BuildContext(facts, retry, k)
	return p, nil
}
