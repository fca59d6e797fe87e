// Package retrieval owns the agent's retrieval pipeline: the deterministic
// mentions a task names, and tiered expansion — ONE implementation, over
// the Graph interface, so that bootstrap's historical snapshots (training
// data) and the knowledge base (KnowledgeGraph, at inference) propose the
// same candidates in the same order for the same repository state.
//
// Tiers: 1 seeds (files the task names, or that define a symbol or are a
// module it names), 2 direct dependencies (imports and importers of a
// seed), 3 co-change neighbours of the seeds, 4 lexical and metadata
// matches (BM25 over the words of paths, symbol names and docstrings, and
// promoted descriptions). Each tier is capped and ranked
// deterministically; ExpandAll also returns the files past the caps, which
// inference records as decisions.
//
// Parity (bootstrap's TestRetrievalOverTheKnowledgeBaseMatchesBootstrap):
// on a linear history the knowledge base of a commit's parent revision and
// bootstrap's snapshot of it give identical candidates and scope prompts,
// and the same precision prompt for the touched files. They still differ
// where co-change history branches: bootstrap counts every commit
// committed before the commit on any branch, the index of a revision only
// the commits reachable from it; and tier 4 over an enriched knowledge base
// also reads the promoted descriptions, which history does not have.
//
// Precision: DeterministicTiers is the one rule for symbol tiers —
// bootstrap's ground truth (primary: the symbols a hunk touches) and
// inference's first guess (primary: the symbols the task names), which the
// model's tiers replace and which stands in when its answer is unusable.
//
// Assembly: the context package (prompt.BuildContext, fitted to the budget
// by Assemble) holds primary symbols in full, supporting ones as signature
// and docstring, type definitions, rationale comments and history notes,
// cut in prompt.CutOrder to fit the budget. curate renders its plan
// examples through prompt.BuildContext too, from bootstrap's targets, which hold the files' text and the tiers
// but no docstrings, comments or history notes: those appear at inference
// only (a known difference; the plan stage's training prompts are a
// subset of what inference shows).
//
// Pipeline runs it all for one task (Run) and re-enters it with a
// refinement request (Reenter), writing each stage's
// output to the task's session and each decision through its Record. It
// also owns the preflight (Preflight) and the merge of the model's task
// analysis with the mentions (Seeds).
//
// It reads a repository only for the text of kept files (LoadFileFacts,
// checked against the indexed hash) and the stores through kb.
package retrieval
