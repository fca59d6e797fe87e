package retrieval

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
)

// planRender is the plan prompt over a package, as cra plan renders it.
func planRender(p prompt.Package) prompt.Prompt {
	return prompt.PlanPrompt(prompt.PlanAtomic, prompt.PlanInput{Task: "task", Files: p.Files, TestResults: p.Retry})
}

func assembleFacts() []prompt.FileFacts {
	long := strings.Repeat("x", 400) // ~110 tokens an item
	content := strings.Join([]string{
		"class T:",            // 1
		"    '" + long + "'",  // 2
		"def f(a: T):",        // 3
		"    # why: " + long,  // 4
		"    return g(a)",     // 5
		"def g(a):",           // 6
		"    return a",        // 7
		"# keep: " + long,     // 8
		"def unused(): pass"}, // 9
		"\n")
	return []prompt.FileFacts{{
		Path: "a.py", Content: content,
		Symbols: []prompt.FactSymbol{
			{Key: "a.py:T", Tier: "type_context", Signature: "class T:", StartLine: 1, EndLine: 2},
			{Key: "a.py:f", Tier: "primary", Signature: "def f(a: T):", StartLine: 3, EndLine: 5},
			{Key: "a.py:g", Tier: "supporting", Signature: "def g(a):", Docstring: "Return a " + long, StartLine: 6, EndLine: 7},
			{Key: "a.py:unused", Tier: "excluded", Signature: "def unused(): pass", StartLine: 9, EndLine: 9},
		},
		Rationale: []prompt.LineNote{{Line: 4, Text: "# why: in f's body"}, {Line: 8, Text: "# keep: " + long}},
		CoChanges: []string{"changed with b.py in 3 earlier commits " + long},
		Commits:   []string{"commit 1a2b3c4 (2024-01-02): " + long},
	}}
}

// Budget overflow trims in the documented order: retry details, recent
// commits, co-changes, rationale comments, supporting symbols, type
// context; the primary symbol never, and when it alone does not fit the
// call is refused.
func TestAssembleTrimsInTheDocumentedOrder(t *testing.T) {
	facts := assembleFacts()
	retry := "FAILED test_f - " + strings.Repeat("y", 400)
	size := func(p prompt.Package) int {
		pr := planRender(p)
		b := llm.Budget{}
		return b.Estimate(pr.System) + b.Estimate(pr.User)
	}
	full, _ := prompt.BuildContext(facts, retry, 0)
	if len(full.Cut) != 0 || full.Retry != retry {
		t.Fatalf("nothing cut: %+v", full)
	}
	text := planRender(full).User
	for _, want := range []string{"def f(a: T):\n        # why: x", "def g(a):\n        Return a x", "class T:\n        'x", "[why] line 8: # keep", "[history] changed with b.py", "[history] commit 1a2b3c4"} {
		if !strings.Contains(text, want) {
			t.Errorf("the full package lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "unused") || strings.Contains(text, "[why] line 4") {
		t.Errorf("an excluded symbol or a comment inside a primary body is shown apart:\n%s", text)
	}
	order := []string{"retry", "commits", "co_changes", "rationale", "supporting", "type_context"}
	for k := 1; k <= len(order); k++ {
		want, _ := prompt.BuildContext(facts, retry, k)
		b := llm.Budget{ContextWindow: size(want) + 1000, ReservedTokens: 1000}
		got, err := Assemble(facts, retry, b, planRender)
		if err != nil {
			t.Fatalf("budget for %d cuts: %v", k, err)
		}
		var levels []string
		for _, c := range got.Cut {
			level, _, _ := strings.Cut(c, ":")
			levels = append(levels, level)
		}
		if !slices.Equal(levels, order[:k]) {
			t.Errorf("budget for %d cuts: cut %v, want %v", k, got.Cut, order[:k])
		}
	}
	least, _ := prompt.BuildContext(facts, retry, len(order))
	_, err := Assemble(facts, retry, llm.Budget{ContextWindow: size(least) - 1 + 1000, ReservedTokens: 1000}, planRender)
	if !errors.Is(err, llm.ErrOverBudget) {
		t.Errorf("the primary symbol alone over the limit: %v, want ErrOverBudget", err)
	}
	if _, ok := prompt.BuildContext(facts, retry, len(order)+1); ok {
		t.Error("more cuts than items: ok")
	}
}

// Without the file's text (curate has none for created files; a checkout
// edited since indexing) a primary symbol is its signature and docstring.
func TestAssembleWithoutContent(t *testing.T) {
	facts := []prompt.FileFacts{{Path: "a.py", Symbols: []prompt.FactSymbol{
		{Key: "a.py:f", Tier: "primary", Signature: "def f():", Docstring: "Do f.\n\nMore.", StartLine: 1, EndLine: 3}}}}
	p, err := Assemble(facts, "", llm.Budget{ContextWindow: 10_000, ReservedTokens: 100}, planRender)
	if err != nil || len(p.Files) != 1 || len(p.Files[0].Symbols) != 1 || p.Files[0].Symbols[0].Text != "def f():\n    Do f." {
		t.Fatalf("%+v, %v", p, err)
	}
}
