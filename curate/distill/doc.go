// Package distill owns cra distill: the student's prompts sent to a teacher
// model through agent/llm, each answer verified against the ground truth
// before it becomes a training example (rejection sampling).
//
// It owns the selection (items.go: bootstrap's synthetic tasks rendered as
// the student sees them, or the logged prompts of the student's calls in
// failed runs, sampled by seed, with credentials redacted or the item left
// out before anything leaves the machine); the request cache, keyed by a
// request's canonical form, so that an answered request is never sent
// again; the money (cost.go: prices, the bound of a call, the ledger that
// reserves a call's most before it starts, so --budget-usd is a hard cap);
// live calls (live.go) and the Batch API (batch.go, resumable by batch id);
// verification per stage (verify.go); the dry run's estimate (dry.go); and
// the dataset of a distillation (dataset.go), registered as a version.
//
// What it takes from curate, and must not redo, is curate's exported API:
// the synthetic tasks (curate.SyntheticTaskIDs, curate.EachTaskOf,
// curate.DecodeTarget), a target rendered as the student sees it
// (curate.RenderForStudent), the split rule (curate.SplitOf,
// curate.ResplitDistilled), dataset versions (curate.RegisterVersion,
// curate.ExampleID, curate.DatasetLock); a mistake in what it was asked
// is a usage error (internal/usage). Prompt text never lives here: it comes
// from agent/prompt through curate's renderers and agent/prompt's parsers.
package distill
