package config

import "fmt"

// Ask bounds cra ask's CGRAG loop: how far the call graph is walked, how
// much of each kind of context a question mode gets, and how much gap
// resolution may add per pass. Budgets are tokens, estimated as chars/4.
type Ask struct {
	MaxPasses        int        `toml:"max_passes" doc:"Answer passes: the first, then one per round of gaps resolved."`
	MaxCallGraphHops int        `toml:"max_call_graph_hops" doc:"Hops walked backward from an error site (diagnostic) or forward from an entry point (exploratory)."`
	MaxCallersPerHop int        `toml:"max_callers_per_hop" doc:"Callers kept per function and hop walking backward (mutating callers first)."`
	MaxCalleesPerHop int        `toml:"max_callees_per_hop" doc:"Callees kept per function and hop walking forward."`
	MaxSourceLines   int        `toml:"max_source_lines_per_function" doc:"Lines of one function's source shown before it is cut (signature and docstring kept)."`
	TotalBudget      int        `toml:"total_context_budget" doc:"Context tokens of all passes together: initial retrieval plus gap resolution."`
	PerGapBudget     int        `toml:"per_gap_budget" doc:"Tokens one resolved gap may add."`
	PerPassGapBudget int        `toml:"per_pass_gap_budget" doc:"Tokens the gaps of one pass may add."`
	GapBudget        int        `toml:"gap_resolution_budget" doc:"Tokens all gap resolution may add."`
	Diagnostic       ModeBudget `toml:"diagnostic" doc:"Initial retrieval budget of diagnostic questions (errors, failures)."`
	Exploratory      ModeBudget `toml:"exploratory" doc:"Initial retrieval budget of exploratory questions (flows, call paths)."`
	Analytical       ModeBudget `toml:"analytical" doc:"Initial retrieval budget of analytical questions (structure, coupling, flaws)."`
	Conceptual       ModeBudget `toml:"conceptual" doc:"Initial retrieval budget of conceptual questions (what X does)."`
}

// ModeBudget is one question mode's initial retrieval budget, in tokens:
// source snippets, descriptions and docstrings, and structure (imports,
// hotspots, bug-fix history).
type ModeBudget struct {
	Source    int `toml:"source" doc:"Tokens of source snippets."`
	Docs      int `toml:"docs" doc:"Tokens of file descriptions and docstrings."`
	Structure int `toml:"structure" doc:"Tokens of structure: imports, importers, hotspots, bug-fix commits."`
}

// Mode is the budget of a question mode by name ("" when the mode is not
// one of the four).
func (a Ask) Mode(mode string) ModeBudget {
	switch mode {
	case "diagnostic":
		return a.Diagnostic
	case "exploratory":
		return a.Exploratory
	case "analytical":
		return a.Analytical
	case "conceptual":
		return a.Conceptual
	}
	return ModeBudget{}
}

// defaultAsk follows the CGRAG design's budgets.
func defaultAsk() Ask {
	return Ask{
		MaxPasses: 3, MaxCallGraphHops: 3, MaxCallersPerHop: 5, MaxCalleesPerHop: 8, MaxSourceLines: 100,
		TotalBudget: 6000, PerGapBudget: 500, PerPassGapBudget: 1500, GapBudget: 3000,
		Diagnostic:  ModeBudget{Source: 2000, Docs: 1000},
		Exploratory: ModeBudget{Source: 2500, Docs: 500},
		Analytical:  ModeBudget{Source: 1500, Docs: 500, Structure: 1000},
		Conceptual:  ModeBudget{Source: 0, Docs: 4000},
	}
}

func (a Ask) validate(bad badFunc) {
	positive(bad, "ask.max_passes", a.MaxPasses)
	nonNegative(bad, "ask.max_call_graph_hops", a.MaxCallGraphHops)
	positive(bad, "ask.max_callers_per_hop", a.MaxCallersPerHop)
	positive(bad, "ask.max_callees_per_hop", a.MaxCalleesPerHop)
	positive(bad, "ask.max_source_lines_per_function", a.MaxSourceLines)
	positive(bad, "ask.total_context_budget", a.TotalBudget)
	nonNegative(bad, "ask.per_gap_budget", a.PerGapBudget)
	nonNegative(bad, "ask.per_pass_gap_budget", a.PerPassGapBudget)
	nonNegative(bad, "ask.gap_resolution_budget", a.GapBudget)
	for name, m := range map[string]ModeBudget{"diagnostic": a.Diagnostic, "exploratory": a.Exploratory, "analytical": a.Analytical, "conceptual": a.Conceptual} {
		nonNegative(bad, "ask."+name+".source", m.Source)
		nonNegative(bad, "ask."+name+".docs", m.Docs)
		nonNegative(bad, "ask."+name+".structure", m.Structure)
		if m.Source+m.Docs+m.Structure > a.TotalBudget {
			bad("ask."+name, fmt.Sprintf("the %s budget (%d tokens) is over total_context_budget (%d)", name, m.Source+m.Docs+m.Structure, a.TotalBudget),
				"lower the mode's budgets or raise total_context_budget")
		}
	}
}
