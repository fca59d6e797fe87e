package ask

import (
	"context"

	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/kb"
)

// Retriever finds an ask's context in one repository's curated store.
// (The mode-specific retrieval replaces this placeholder, which finds
// nothing.)
type Retriever struct {
	KB     *kb.KnowledgeBase
	Repo   kb.Repo
	Graph  *retrieval.KnowledgeGraph
	Config config.Ask
}

// Retrieve is the initial retrieval of a classified question.
func (r *Retriever) Retrieve(ctx context.Context, c Classification, question string) (Retrieval, error) {
	return Retrieval{Mode: c.Mode}, nil
}

// ResolveGap finds context for one gap within budget tokens.
func (r *Retriever) ResolveGap(ctx context.Context, gap string, mode Mode, budget int, seen map[string]bool) ([]Source, error) {
	return nil, nil
}
