package prompt

import (
	"fmt"
	"strings"
)

// ScopeCandidate is a file tiered expansion proposes, as the model sees it.
type ScopeCandidate struct {
	Path    string
	Tier    int    // 1 seed, 2 direct dependency, 3 co-change neighbour, 4 shares words with the task
	Reason  string // why expansion proposed it
	Symbols []string
}

// ScopeInput is the scope stage's input: the task and the candidates.
type ScopeInput struct {
	Task       string
	Candidates []ScopeCandidate
}

// ScopeResponse is the scope stage's answer: the candidates to keep.
type ScopeResponse struct {
	Relevant []string `json:"relevant"`
}

const scopeSystem = `You select the files a code change needs. You get a task and candidate files of a repository, found by expanding from files the task names (tier 1) to their imports and importers (tier 2), to files that often changed with them (tier 3), and to files whose names, symbols or docstrings share words with the task (tier 4). Answer with a JSON object {"relevant": [paths]} listing, in the order given, every candidate the change must read or edit, and nothing else.`

// ScopePrompt renders the scope stage's prompt.
func ScopePrompt(in ScopeInput) Prompt {
	var b strings.Builder
	fmt.Fprintf(&b, "Task:\n%s\n\nCandidates:\n", strings.TrimSpace(in.Task))
	for _, c := range in.Candidates {
		fmt.Fprintf(&b, "- %s (tier %d: %s)", c.Path, c.Tier, c.Reason)
		if len(c.Symbols) > 0 {
			fmt.Fprintf(&b, "; defines %s", strings.Join(c.Symbols, ", "))
		}
		b.WriteString("\n")
	}
	return Prompt{System: scopeSystem, User: b.String()}
}

// RenderScope is the exact response text ParseScope accepts for r.
func RenderScope(r ScopeResponse) string {
	if r.Relevant == nil {
		r.Relevant = []string{}
	}
	return encodeJSON(r)
}

// ParseScope reads a scope response.
func ParseScope(text string) (ScopeResponse, error) {
	var r ScopeResponse
	if err := decodeJSON(text, &r); err != nil {
		return r, fmt.Errorf("scope: %w", err)
	}
	return r, nil
}
