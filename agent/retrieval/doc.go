// Package retrieval owns the agent's retrieval pipeline: the deterministic
// mentions a task names, and tiered expansion — ONE implementation, over
// the Graph interface, so that bootstrap's historical snapshots (training
// data) and the knowledge base (KnowledgeGraph, at inference) propose the
// same candidates in the same order for the same repository state.
//
// Tiers: 1 seeds (files the task names, or that define a symbol or are a
// module it names), 2 direct dependencies (imports and importers of a
// seed), 3 co-change neighbours of the seeds. Each tier is capped and
// ranked deterministically.
//
// Parity (bootstrap's TestRetrievalOverTheKnowledgeBaseMatchesBootstrap):
// on a linear history the knowledge base of a commit's parent revision and
// bootstrap's snapshot of it give identical candidates and scope prompts.
// They still differ where co-change history branches: bootstrap counts
// every commit committed before the commit on any branch, the index of a
// revision only the commits reachable from it; and tier 4 over an enriched
// knowledge base also reads the promoted descriptions, which history does
// not have.
//
// It also owns the pipeline's preflight (Preflight: models, knowledge base,
// raw store, enrichment) and the merge of the model's task analysis with the
// mentions (Seeds).
//
// It must not read a repository itself, and reads the stores only to load
// a KnowledgeGraph and to check them before a run. Scope judgment by the
// model's scope caps as decisions, deterministic precision pre-tiers and a
// richer context package come with the rest of the retrieval issue.
package retrieval
