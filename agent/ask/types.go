package ask

import (
	"fmt"
	"slices"
	"strings"
)

// Mode is how a question is answered: which retrieval fits it.
type Mode string

// The four question modes.
const (
	Diagnostic  Mode = "diagnostic"  // an error or a failure: error sites, callers walked backward
	Exploratory Mode = "exploratory" // a flow: entry points, callees walked forward
	Analytical  Mode = "analytical"  // structure, coupling, flaws: imports, hotspots, bug-fix history
	Conceptual  Mode = "conceptual"  // what X does: descriptions and docstrings, symbol names
)

// Modes lists the modes in the classifier's order.
var Modes = []Mode{Diagnostic, Exploratory, Analytical, Conceptual}

// ParseMode reads a mode by name, in any case.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes {
		if strings.EqualFold(string(m), strings.TrimSpace(s)) {
			return m, nil
		}
	}
	return "", fmt.Errorf("%q is not a question mode (%v)", s, Modes)
}

// Valid says whether m is one of the four modes.
func (m Mode) Valid() bool { return slices.Contains(Modes, m) }

// Classification is a question's mode, why, and the part of the code it
// is about ("" for none named).
type Classification struct {
	Mode      Mode   `json:"mode"`
	Reasoning string `json:"reasoning"`
	Scope     string `json:"scope,omitempty"`
	// By says who classified: "model", "fallback" (the model's answers
	// were unusable: the keyword rule decided) or "oracle" (--oracle
	// classify: the known mode).
	By string `json:"by"`
}

// Who classified a question.
const (
	ByModel    = "model"
	ByFallback = "fallback"
	ByOracle   = "oracle"
)

// Source kinds: what a piece of context is.
const (
	KindSource    = "source"    // a line range of the indexed revision
	KindDoc       = "doc"       // a file's description or a symbol's docstring
	KindStructure = "structure" // imports, importers, hotspots, co-change, bug-fix commits
)

// Source is one piece of context shown to the model: a line range of a
// file at the indexed revision (a function, a class, a file's head), a
// description, or a structural summary.
type Source struct {
	Path     string `json:"path"`
	Start    int    `json:"start"` // 1-based, inclusive; 0 for a whole-file doc or structure
	End      int    `json:"end"`
	Symbol   string `json:"symbol,omitempty"` // qualified name
	FileID   int64  `json:"file_id"`          // files.id of the curated store
	SymbolID int64  `json:"symbol_id,omitempty"`
	Kind     string `json:"kind"`
	// Step is the retrieval step that found it, as retrieval_decisions.tier
	// keeps it: "error_site", "error_string", "frame", "caller_1".."caller_N",
	// "entry", "callee_1".., "hotspot", "importer", "bugfix", "doc",
	// "lexical", "symbol", "gap_direct", "gap_search".
	Step string `json:"step"`
	Why  string `json:"why"`  // one line: what matched ("raises UsageError", "calls parse_args")
	Text string `json:"text"` // what the prompt shows, cut to its budget
	// Tokens is Text's estimate (chars/4), counted against the budgets.
	Tokens int `json:"tokens"`
}

// Cite is "path:start-end" (or the path alone without lines).
func (s Source) Cite() string {
	if s.Start <= 0 {
		return s.Path
	}
	return fmt.Sprintf("%s:%d-%d", s.Path, s.Start, s.End)
}

// Retrieval is a mode's initial context: sources best first, within the
// mode's budget, and what was found but left out for the budget.
type Retrieval struct {
	Mode    Mode     `json:"mode"`
	Anchors []string `json:"anchors,omitempty"` // what the question was searched by: exception types, messages, frames, subject words
	Sources []Source `json:"sources"`
	Cut     []Source `json:"cut,omitempty"` // found, over the budget (Text empty)
	Tokens  int      `json:"tokens"`
}

// Tokens estimates the tokens of text as cra does everywhere (chars/4).
func Tokens(text string) int { return (len(text) + 3) / 4 }
