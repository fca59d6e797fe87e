package schema

// Scope tiers, in expansion order.
const (
	TierSeed       = 1 // named in the message, or defines a symbol the message names
	TierDependency = 2 // imports a seed or is imported by one
	TierCoChange   = 3 // changed together with a seed in earlier commits
	TierLexical    = 4 // its path, symbols or docstrings share words with the task
)

// ScopeTarget is the scope stage's ground truth: the candidates tiered
// expansion proposes at the parent state, each labelled relevant iff the
// commit touched it.
type ScopeTarget struct {
	Candidates []ScopeCandidate `json:"candidates"`
	// Touched are the files the commit changed that exist at the parent.
	Touched []string `json:"touched"`
	// Created are files the commit adds: no retrieval can find them.
	Created []string `json:"created"`
	// Reached: every touched file is among the candidates.
	Reached bool `json:"reached"`
}

// ScopeCandidate is one file tiered expansion proposes.
type ScopeCandidate struct {
	Path     string `json:"path"`
	Tier     int    `json:"tier"`
	Rank     int    `json:"rank"` // 1-based, within the tier
	Reason   string `json:"reason"`
	Relevant bool   `json:"relevant"`
	// Symbols names the file's top-level symbols (at most a few dozen), so a
	// prompt can describe the file without its content.
	Symbols []string `json:"symbols"`
}

// Precision tiers of a symbol (PrecisionSymbol.Tier, a string; the scope
// tiers above are numbered tiers of files).
const (
	TierPrimary     = "primary"      // overlaps a changed hunk
	TierSupporting  = "supporting"   // calls or is called by a primary symbol
	TierTypeContext = "type_context" // a type named in a primary signature
	TierExcluded    = "excluded"
)

// PrecisionTarget is the precision stage's ground truth: every symbol of the
// touched files at the parent state, with its tier.
type PrecisionTarget struct {
	Symbols []PrecisionSymbol `json:"symbols"`
}

// PrecisionSymbol is one symbol and the precision tier it deserves.
type PrecisionSymbol struct {
	File          string `json:"file"`
	Name          string `json:"name"`
	QualifiedName string `json:"qualified_name"` // Parent.Name for methods and nested symbols
	Kind          string `json:"kind"`
	StartLine     int    `json:"start_line"`
	EndLine       int    `json:"end_line"`
	Signature     string `json:"signature"`
	Tier          string `json:"tier"`
}

// ImplementTarget is the implement stage's ground truth: the parent content
// of every touched file and the search/replace edits that turn it into the
// child content byte for byte (verified before it is stored).
type ImplementTarget struct {
	Files []ImplementFile `json:"files"`
	Edits []Edit          `json:"edits"`
}

// ImplementFile is a file as the model sees it before the change; Content is
// empty for a file the commit creates.
type ImplementFile struct {
	Path    string `json:"path"`
	Content string `json:"content"`
	Created bool   `json:"created,omitempty"`
	Deleted bool   `json:"deleted,omitempty"`
}

// Edit is one search/replace edit: Search occurs exactly once in the file's
// current content (empty Search creates the file with Replace as content).
type Edit struct {
	File    string `json:"file"`
	Search  string `json:"search"`
	Replace string `json:"replace"`
}
