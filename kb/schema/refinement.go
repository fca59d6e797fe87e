package schema

import (
	"errors"
	"strings"
)

// RefinementRequest is what the implement side asks retrieval for when an
// attempt failed for want of context (retrieval.Pipeline.Reenter):
// concrete evidence of what is missing, never just "more context".
type RefinementRequest struct {
	Reason          string   `json:"reason"`
	MissingFiles    []string `json:"missing_files"`
	MissingSymbols  []string `json:"missing_symbols"`
	MissingTests    []string `json:"missing_tests"`
	ErrorSignatures []string `json:"error_signatures"`
}

// Validate requires a reason and at least one concrete piece of evidence.
func (r RefinementRequest) Validate() error {
	if strings.TrimSpace(r.Reason) == "" {
		return errors.New("refinement request: no reason")
	}
	if len(r.MissingFiles)+len(r.MissingSymbols)+len(r.MissingTests)+len(r.ErrorSignatures) == 0 {
		return errors.New("refinement request: no concrete evidence (missing files, symbols, tests or error signatures)")
	}
	return nil
}
