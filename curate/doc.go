// Package curate owns dataset curation from bootstrap's synthetic ground
// truth: selecting targets, rendering them through agent/prompt into chat
// examples fitted to the context budget, filtering (empty, trivial, exact and
// MinHash near duplicates, credentials redacted or dropped, a per-repository
// cap), splitting by commit, and storing the dataset in the raw store; and
// distillation (distill*.go): the student's prompts sent to a teacher model
// through agent/llm — cached by request, under a budget reserved before
// each call, live or through the Batch API, resumable — each answer
// verified against the ground truth before it becomes a training example.
// Logged runs, preference pairs and balancing come with later issues.
// Prompt text never lives here: it comes from agent/prompt.
package curate
