// Package curate owns dataset curation: selecting examples from three
// sources — bootstrap's synthetic ground truth (render.go: targets rendered
// through agent/prompt into chat examples fitted to the context budget),
// the agent's logged runs (logged*.go: the exact prompts cra solve and
// cra eval sent, labelled by tests, eval scores and run outcomes, made into
// SFT rows, preference pairs — coder retry, adjustment, eval, teacher vs
// student — and KTO rows) and distilled answers; filtering (empty,
// trivial, same-answer pairs, exact and MinHash near duplicates,
// credentials redacted or dropped, a per-repository cap); splitting by
// kb.SplitRule (split.go: by commit, a merged branch with its parts, by
// run, eval runs always in validation) and refusing a train split that
// holds an evaluated task or its branch (decontaminate.go); balancing KTO
// labels; and storing the dataset as a version in the raw store.
//
// Distillation is curate/distill's, built on a small exported API that
// is curate's own rules and must stay the only copy of them: the synthetic
// tasks (Task, SyntheticTaskIDs, EachTaskOf, DecodeTarget), a target
// rendered as the student sees it (RenderForStudent), the split (SplitOf,
// ResplitDistilled), dataset versions (BuiltVersion, RegisterVersion,
// ExampleID, DatasetLock); a mistake in what it was asked is a usage
// error (internal/usage), as everywhere. Nothing in curate
// depends on distill.
// Prompt text never lives here: it comes from agent/prompt.
package curate
