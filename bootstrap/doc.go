// Package bootstrap owns the nightly batch that mines cloned repositories into
// synthetic ground truth: the commit filter, history replay against each
// commit's own parent (no leakage from the future), ground-truth
// reconstruction per pipeline stage, and the incremental, resumable runner.
// It stores structured ground truth only; prompt text is rendered by curate.
// Besides its raw tables it owns curated's bootstrap_facts: the parsed facts
// of the blobs at the tips where a run stopped, a cache the next run loads
// so that it parses only what its new commits bring.
// It never mines what cra wrote itself: commits only cra's branches reach,
// or authored or committed by cra's identity (kb/schema's Agent names).
package bootstrap
