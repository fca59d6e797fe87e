// Package curate owns dataset curation from bootstrap's synthetic ground
// truth: selecting targets, rendering them through agent/prompt into chat
// examples fitted to the context budget, filtering (empty, trivial, exact and
// MinHash near duplicates, credentials redacted or dropped, a per-repository
// cap), splitting by commit, and storing the dataset in the raw store.
// Logged runs, preference pairs, distillation and balancing come with later
// issues. Prompt text never lives here: it comes from agent/prompt.
package curate
