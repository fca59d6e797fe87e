// Package curate owns dataset curation: selecting logged runs and synthetic
// ground truth, rendering them through agent/prompt, filtering, deduplicating,
// balancing, splitting, building DPO pairs, teacher distillation and secret
// redaction. Prompt text never lives here: it comes from agent/prompt.
package curate
