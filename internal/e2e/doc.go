// Package e2e runs the README's recipe end to end — init, bootstrap,
// curate-data, datasets export in every layout, eval, train-plan,
// curate-data --source logged, distill — each step a child process of a
// built cra binary, and measures every step: exit code, wall time, peak RSS
// and rows written. The realistic-fixture test (cmd/cra/recipe_test.go) and
// `make e2e` (cmd/e2e here, on real clones) run the same steps.
//
// The model is internal/fakellm in oracle mode: it answers every stage from
// the mined ground truth (agent/eval/evaltest), so eval scores, logged
// curation and distillation have right answers to find. The test serves it
// in process; `make e2e` starts cmd/fakellm, a standalone process, once
// bootstrap has mined what it needs to know.
//
// It is test tooling: nothing in cra imports it.
package e2e
