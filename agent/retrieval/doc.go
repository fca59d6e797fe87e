// Package retrieval owns the agent's retrieval pipeline: the deterministic
// mentions a task names, and tiered expansion — ONE implementation, over
// the Graph interface, so that bootstrap's historical snapshots (training
// data) and the knowledge base (inference) propose the same candidates in
// the same order for the same repository state.
//
// Tiers: 1 seeds (files the task names, or that define a symbol or are a
// module it names), 2 direct dependencies (imports and importers of a
// seed), 3 co-change neighbours of the seeds. Each tier is capped and
// ranked deterministically.
//
// It must not read a store or a repository itself: a Graph answers its
// questions. Scope judgment by the model, precision, assembly and the
// model's task analysis come with the retrieval issue.
package retrieval
